package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/workflows/contract"
)

// parsePolicy checks a policy as a caller sent it: strictly (unknown fields
// are refused), naming the bad entry. Open comes back as nil: the default,
// which State and the create's memo keep as no policy at all.
func parsePolicy(raw json.RawMessage) (*policy.Policy, *api.Error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	p, err := policy.Parse(raw)
	if err != nil {
		msg := err.Error()
		if !errors.Is(err, policy.ErrInvalid) {
			msg = "invalid egress policy: " + msg
		}
		return nil, badRequest(msg + ` (a policy is {"mode": "open"}, {"mode": "none"} or {"mode": "allowlist", "domains": ["api.github.com", "*.pypi.org"], "cidrs": ["140.82.112.0/20"]})`)
	}
	if p.Mode == policy.Open {
		return nil, nil
	}
	return &p, nil
}

// wirePolicy is the API form of a policy; nil is the default, open.
func wirePolicy(p *policy.Policy) *api.EgressPolicy {
	if p == nil {
		return &api.EgressPolicy{Mode: api.EgressOpen}
	}
	return &api.EgressPolicy{Mode: string(p.Mode), Domains: p.Domains, CIDRs: p.CIDRs}
}

// setEgress changes a sandbox's egress policy. A running sandbox's host
// enforces it before the answer; when it cannot, the old policy stays and
// the answer is EGRESS_UNAVAILABLE.
func (s *Server) setEgress(c echo.Context) error {
	name := c.Param("name")
	var raw json.RawMessage
	if err := decodeJSON(c, &raw); err != nil {
		return err
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return badRequest(`the body must be a policy such as {"mode": "open"}`)
	}
	p, aerr := parsePolicy(raw)
	if aerr != nil {
		return aerr
	}
	if p == nil {
		p = &policy.Policy{Mode: policy.Open}
	}
	v, err := s.update(c.Request().Context(), name, contract.OpEgress, *p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, publicView(v))
}
