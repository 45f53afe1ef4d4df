package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/workflows/contract"
)

var envKeyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,255}$`)

const maxEnvValue = contract.MaxEnvValueBytes

// knownName answers 404 SANDBOX_NOT_FOUND on a /sandboxes/:name route
// whose name no sandbox can have, before its handler runs: such a name is
// never sent on to Temporal or a supervisor.
func knownName(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if name := c.Param("name"); validName(name) != nil {
			return sandboxNotFound(name)
		}
		return next(c)
	}
}

func validName(name string) *api.Error {
	if !api.ValidSandboxName(name) {
		return badRequest(fmt.Sprintf("sandbox name %q is invalid: use %s", name, api.SandboxNameRule))
	}
	return nil
}

func validBackupID(id string) *api.Error {
	if !api.ValidBackupID(id) {
		return badRequest(fmt.Sprintf("backupId %q is not a backup id (like 20250102T030405Z-0a1b2c3d): `berth backups NAME` lists them", id))
	}
	return nil
}

// decodeJSON reads a JSON body strictly: unknown fields and trailing data
// are errors, so a typo never silently does nothing.
func decodeJSON(c echo.Context, v any) *api.Error {
	return decodeBody(c, v, false)
}

// decodeOptionalJSON is decodeJSON for routes whose body may be left out
// (it then leaves v as it is).
func decodeOptionalJSON(c echo.Context, v any) *api.Error {
	return decodeBody(c, v, true)
}

func decodeBody(c echo.Context, v any, optional bool) *api.Error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var mbe *echo.HTTPError
		if errors.As(err, &mbe) || strings.Contains(err.Error(), "too large") {
			return api.NewError(413, api.CodePayloadTooLarge, "request body too large")
		}
		return badRequest("could not read the request body")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return nil
		}
		return badRequest("request body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("malformed JSON body: " + err.Error())
	}
	if dec.More() {
		return badRequest("malformed JSON body: trailing data after the object")
	}
	return nil
}

func checkSleepAfter(d api.SleepAfter) *api.Error {
	if d.Set && (d.D < contract.MinSleepAfter || d.D > contract.MaxSleepAfter) {
		return badRequest(fmt.Sprintf("sleepAfter %s is out of range: use 1s to 168h", d.D))
	}
	return nil
}

// checkEnv validates keys and values; nil values (unset) are allowed only
// where allowNull says so. Values are never echoed in errors: they may be
// secrets pasted by mistake.
//
// The sandbox's whole env is bounded too (contract.MaxEnvVars and
// MaxEnvBytes): a request that alone breaks the bound is refused here with
// 413 ENV_TOO_LARGE; one that breaks it together with the env the sandbox
// already has is refused the same way by the workflow's update validator.
func checkEnv(env map[string]*string, allowNull bool) *api.Error {
	if len(env) > maxEnvChangeKeys {
		return badRequest(fmt.Sprintf("too many env variables in one request (%d > %d)", len(env), maxEnvChangeKeys))
	}
	vars, size := 0, 0
	for k, v := range env {
		if !envKeyRE.MatchString(k) {
			return badRequest(fmt.Sprintf("env key %q is invalid: use letters, digits and '_', not starting with a digit", k))
		}
		if v == nil {
			if !allowNull {
				return badRequest(fmt.Sprintf("env %s: null is only allowed when changing env", k))
			}
			continue
		}
		if len(*v) > maxEnvValue || strings.IndexByte(*v, 0) >= 0 {
			return badRequest(fmt.Sprintf("env %s: value must be at most 32 KiB without NUL bytes", k))
		}
		if err := checkSecretMaterial(k, *v); err != nil {
			return badRequest(err.Error())
		}
		vars, size = vars+1, size+len(k)+len(*v)
	}
	if vars > contract.MaxEnvVars || size > contract.MaxEnvBytes {
		return envTooLarge(vars, size)
	}
	return nil
}

// maxEnvChangeKeys bounds the keys (sets and unsets) of one request.
const maxEnvChangeKeys = 256

func envTooLarge(vars, size int) *api.Error {
	e := api.NewError(http.StatusRequestEntityTooLarge, api.CodeEnvTooLarge, fmt.Sprintf(
		"the sandbox env would hold %d variables and %d bytes of keys and values; at most %d variables and %d bytes are allowed",
		vars, size, contract.MaxEnvVars, contract.MaxEnvBytes))
	e.Context = map[string]any{"vars": vars, "bytes": size, "maxVars": contract.MaxEnvVars, "maxBytes": contract.MaxEnvBytes}
	return e
}
