package conformance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/berthdev/berth/client"
)

// The Go runner's operations on terminals, services, egress, previews,
// scoped tokens, stats and conditional file reads.

// termReader pumps a terminal connection's output into a channel, so that
// a read can stop at a deadline without ending the connection.
type termReader struct {
	conn *client.TerminalConn
	out  chan []byte // closed at the end of the output
	// rest is what arrived after the text the last read waited for: the
	// next read starts with it (a replay arrives in one chunk).
	rest string
}

func newTermReader(conn *client.TerminalConn) *termReader {
	t := &termReader{conn: conn, out: make(chan []byte, 64)}
	go func() {
		defer close(t.out)
		buf := make([]byte, 32<<10)
		for {
			n, err := conn.Read(buf)
			if n > 0 {
				t.out <- append([]byte(nil), buf[:n]...)
			}
			if err != nil {
				return
			}
		}
	}()
	return t
}

// read reads until the output holds until (or, with until empty, until
// it ends), within timeout.
func (t *termReader) read(until string, timeout time.Duration) (string, bool, error) {
	var got strings.Builder
	got.WriteString(t.rest)
	t.rest = ""
	deadline := time.After(timeout)
	for {
		if i := strings.Index(got.String(), until); until != "" && i >= 0 {
			s := got.String()
			t.rest = s[i+len(until):]
			return s[:i+len(until)], true, nil
		}
		select {
		case b, ok := <-t.out:
			if !ok {
				if until != "" {
					return got.String(), false, fmt.Errorf("the terminal's output ended without %q: %q", until, got.String())
				}
				return got.String(), false, nil
			}
			got.Write(b)
		case <-deadline:
			return got.String(), false, fmt.Errorf("no %q in the terminal's output within %v: %q", until, timeout, got.String())
		}
	}
}

// features holds what the operations of this file keep between steps.
type features struct {
	url, token string
	terms      map[string]*client.Terminal
	conns      map[string]*termReader
	etags      map[string]string
	tokens     map[string]*client.Token
	ports      map[string]*client.ExposedPort // sandbox name/port -> its exposure
}

func newFeatures(url, token string) *features {
	return &features{url: url, token: token, terms: map[string]*client.Terminal{}, conns: map[string]*termReader{},
		etags: map[string]string{}, tokens: map[string]*client.Token{}, ports: map[string]*client.ExposedPort{}}
}

func (f *features) close() {
	for _, c := range f.conns {
		c.conn.Close()
	}
}

// asToken is the client of a step's scoped token.
func (r *goRunner) asToken(st Step) (*client.Client, error) {
	t, ok := r.f.tokens[st.str("asToken")]
	if !ok {
		return nil, fmt.Errorf("no token %q in the scenario", st.str("asToken"))
	}
	return client.New(r.f.url, t.Value), nil
}

// stepFeature runs the operations of this file; ok is false for an
// operation it does not know.
func (r *goRunner) stepFeature(ctx context.Context, c *client.Client, st Step) (map[string]any, bool, error) {
	name := r.name(st.str("sandbox"))
	sb := c.Sandbox(name)
	switch st.Op() {
	case "createTerminal":
		cols, _ := st.num("cols")
		rows, _ := st.num("rows")
		t, err := sb.CreateTerminal(ctx, client.TerminalOptions{Argv: st.strings("argv"), Cols: cols, Rows: rows})
		if err != nil {
			return nil, true, err
		}
		r.f.terms[st.str("as")] = t
		return nil, true, nil
	case "connectTerminal":
		t, ok := r.f.terms[st.str("terminal")]
		if !ok {
			return nil, true, fmt.Errorf("no terminal %q in the scenario", st.str("terminal"))
		}
		conn, err := sb.Terminal(t.ID).Connect(ctx, r.cursors[st.str("since")], 0, 0)
		if err != nil {
			return nil, true, err
		}
		if k := st.str("saveCursor"); k != "" {
			r.cursors[k] = conn.Cursor()
		}
		r.f.conns[st.str("as")] = newTermReader(conn)
		return map[string]any{"hasCursor": conn.Cursor() != ""}, true, nil
	case "terminalSend", "terminalResize", "terminalRead", "terminalDetach":
		t, ok := r.f.conns[st.str("conn")]
		if !ok {
			return nil, true, fmt.Errorf("no terminal connection %q in the scenario", st.str("conn"))
		}
		switch st.Op() {
		case "terminalSend":
			_, err := t.conn.Write([]byte(st.str("text")))
			return nil, true, err
		case "terminalResize":
			return nil, true, t.conn.Resize(mustNum(st, "cols"), mustNum(st, "rows"))
		case "terminalDetach":
			delete(r.f.conns, st.str("conn"))
			return nil, true, t.conn.Close()
		}
		_, matched, err := t.read(st.str("until"), ms(st, "timeoutMs"))
		got := map[string]any{"matched": matched}
		if e := t.conn.Exit(); e != nil {
			got["exitCode"] = e.Code
		}
		return got, true, err
	case "setService":
		_, err := c.PutService(ctx, name, client.Service{Name: st.str("service"), Argv: st.strings("argv"), Restart: st.str("restart")})
		return nil, true, err
	case "services":
		list, err := c.ListServices(ctx, name)
		var names []string
		for _, s := range list {
			names = append(names, s.Name)
		}
		return map[string]any{"names": names}, true, err
	case "waitService":
		// Polls the services' state until the named one has the state, or
		// timeoutMs passed: answers the last seen.
		deadline := time.Now().Add(ms(st, "timeoutMs"))
		for {
			list, err := c.ListServices(ctx, name)
			if err != nil {
				return nil, true, err
			}
			got := map[string]any{"state": ""}
			for _, s := range list {
				if s.Name == st.str("service") {
					got = map[string]any{"state": s.State, "hasProcessId": s.ProcessID != ""}
				}
			}
			if got["state"] == st.str("state") || time.Now().After(deadline) {
				return got, true, nil
			}
			time.Sleep(200 * time.Millisecond)
		}
	case "setEgress":
		var p client.EgressPolicy
		b, _ := json.Marshal(st.object("policy"))
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, true, err
		}
		_, err := c.SetEgress(ctx, name, p)
		return nil, true, err
	case "exposePort":
		p, err := c.Expose(ctx, name, mustNum(st, "port"), false)
		if err != nil {
			return nil, true, err
		}
		r.f.ports[fmt.Sprint(name, "/", p.Port)] = p
		return map[string]any{"port": p.Port, "public": p.Public, "hasToken": p.Token != ""}, true, nil
	case "fetchPreview":
		p, ok := r.f.ports[fmt.Sprint(name, "/", mustNum(st, "port"))]
		if !ok {
			return nil, true, fmt.Errorf("port %d of %s was not exposed in the scenario", mustNum(st, "port"), st.str("sandbox"))
		}
		tok := p.Token
		if without, _ := st.boolean("withoutToken"); without {
			tok = ""
		}
		status, body, err := fetchPreview(ctx, p.PathURL, st.str("path"), tok)
		return map[string]any{"status": status, "body": body}, true, err
	case "createToken":
		ttl, _ := st.num("ttlSeconds")
		var names []string
		for _, l := range st.strings("sandboxes") {
			names = append(names, r.name(l))
		}
		t, err := c.CreateToken(ctx, sandboxName("go", r.scenario, st.str("token")),
			client.TokenOptions{Sandboxes: names, Scopes: st.strings("scopes"), TTL: time.Duration(ttl) * time.Second})
		if err != nil {
			return nil, true, err
		}
		r.f.tokens[st.str("token")] = t
		return map[string]any{"scopes": toAny(t.Scopes), "hasValue": t.Value != ""}, true, nil
	case "listTokens":
		want := r.f.tokens[st.str("token")]
		list, err := c.ListTokens(ctx)
		got := map[string]any{"listed": false, "valueShown": false}
		for _, t := range list {
			if want != nil && t.ID == want.ID {
				got["listed"], got["valueShown"] = true, t.Value != ""
			}
		}
		return got, true, err
	case "revokeToken":
		t, ok := r.f.tokens[st.str("token")]
		if !ok {
			return nil, true, fmt.Errorf("no token %q in the scenario", st.str("token"))
		}
		return nil, true, c.RevokeToken(ctx, t.ID)
	case "stats":
		s, err := c.Stats(ctx, name)
		if err != nil {
			return nil, true, err
		}
		got := map[string]any{"status": s.Status, "live": s.Live, "hasCpu": s.CPU != nil, "hasMemory": s.Memory != nil}
		if s.Pids != nil {
			got["pids"] = float64(s.Pids.Current)
		}
		return got, true, nil
	case "readFileConditional":
		status, body, etag, err := conditionalGet(ctx, r.f.url, r.f.token, name, st.str("path"), r.f.etags[st.str("ifNoneMatch")])
		if k := st.str("saveEtag"); k != "" {
			r.f.etags[k] = etag
		}
		return map[string]any{"status": status, "base64": base64.StdEncoding.EncodeToString(body), "hasEtag": etag != ""}, true, err
	}
	return nil, false, nil
}

func toAny[T any](l []T) []any {
	out := make([]any, len(l))
	for i, v := range l {
		out[i] = fmt.Sprint(v)
	}
	return out
}

// fetchPreview GETs a preview's path URL as a browser-less caller would:
// the port's preview token in its header, no bearer token.
func fetchPreview(ctx context.Context, pathURL, path, token string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(pathURL, "/")+path, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("X-Berth-Preview-Token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// conditionalGet reads a file with If-None-Match (when etag is set) and
// answers the status, the bytes and the ETag. The Go client has no
// conditional read; this is the API's own request.
func conditionalGet(ctx context.Context, base, token, sandbox, path, etag string) (int, []byte, string, error) {
	u := base + "/v1/sandboxes/" + url.PathEscape(sandbox) + "/files/" + strings.TrimPrefix(path, "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode >= 400 {
		err = errors.New("GET " + path + ": " + resp.Status + ": " + string(b))
	}
	return resp.StatusCode, b, resp.Header.Get("ETag"), err
}
