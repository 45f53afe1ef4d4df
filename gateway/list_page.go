package gateway

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/berthdev/berth/api"
)

// A listing in pages: ?limit=N answers at most N sandboxes (fewer where
// closed runs or a token's reach leave some out) in Temporal's order, the
// latest started first, and X-Next-Page-Token when there are more; the
// next page is ?limit=N&pageToken=THAT. Without limit the whole list comes
// at once, sorted by name. A console shows a long list's first page while
// the rest loads. The token is Temporal's, signed with a key of
// BERTH_SECRET (every gateway takes every gateway's), so a made-up one is
// refused here and never reaches Temporal.
const (
	nextPageHeader = "X-Next-Page-Token"
	maxPage        = 1000
)

type listPage struct {
	limit int    // 0: the whole list
	token []byte // Temporal's, from pageToken
}

// size is the page size to ask Temporal for.
func (p listPage) size() int32 {
	if p.limit > 0 {
		return int32(p.limit)
	}
	return maxPage
}

func (s *Server) parsePage(c echo.Context, query string) (listPage, *api.Error) {
	var p listPage
	if raw := c.QueryParam("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > maxPage {
			return p, badRequest("limit must be a whole number from 1 to " + strconv.Itoa(maxPage))
		}
		p.limit = n
	}
	if raw := c.QueryParam("pageToken"); raw != "" {
		if p.limit == 0 {
			return p, badRequest("pageToken needs limit")
		}
		t, err := base64.RawURLEncoding.DecodeString(raw)
		if err != nil || len(t) <= pageMACSize || len(t) > 4096 || !hmac.Equal(t[:pageMACSize], s.pageMAC(query, t[pageMACSize:])) {
			return p, badRequest("pageToken is not one a listing gave")
		}
		p.token = t[pageMACSize:]
	}
	return p, nil
}

const pageMACSize = 16

// pageMAC signs a Temporal page token of a listing by query (a token is
// good for its own query only).
func (s *Server) pageMAC(query string, token []byte) []byte {
	m := hmac.New(sha256.New, []byte("berth list page token\x00"+s.secret))
	m.Write([]byte(query + "\x00"))
	m.Write(token)
	return m.Sum(nil)[:pageMACSize]
}

// nextPageToken is what a client sends for the page of query after token.
func (s *Server) nextPageToken(query string, token []byte) string {
	return base64.RawURLEncoding.EncodeToString(append(s.pageMAC(query, token), token...))
}
