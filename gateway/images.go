package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/distribution/reference"
	"github.com/google/uuid"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/workflows/contract"
)

// maxImageRef bounds an image ref (Docker's own limit on a name is 255
// bytes; a digest adds 72).
const maxImageRef = 512

// pullRetryAfter is the Retry-After of IMAGE_PULL_FAILED.
const pullRetryAfter = 5 * time.Second

// checkImage validates a create's image ref and that the operator allows
// it (BERTH_IMAGES).
func (s *Server) checkImage(ref string) *api.Error {
	if len(ref) > maxImageRef {
		return badRequest(fmt.Sprintf("image: at most %d bytes", maxImageRef))
	}
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return badRequest(fmt.Sprintf("image: %q is not an image reference (e.g. python:3.12, ghcr.io/acme/app@sha256:…): %v", ref, err))
	}
	if !config.AllowsImage(s.images, ref, named.String()) {
		e := api.NewError(http.StatusForbidden, api.CodeImageNotAllowed,
			fmt.Sprintf("image %q is not one this Berth allows; the operator's BERTH_IMAGES names the allowed patterns", ref))
		e.Context = map[string]any{"image": ref}
		return e
	}
	return nil
}

// resolveImage fixes a create's image ref to a digest through any worker
// (contract.WorkflowResolveImage), before the name is claimed: an unknown
// image claims nothing.
func (s *Server) resolveImage(ctx context.Context, ref string) (string, error) {
	var res contract.ResolveImageResult
	err := s.callTemporal(ctx, func(ctx context.Context) error {
		run, err := s.temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID: "image-resolve/" + uuid.NewString(), TaskQueue: contract.SharedQueue,
			WorkflowExecutionTimeout: time.Minute,
		}, contract.WorkflowResolveImage, contract.ResolveImageInput{Ref: ref})
		if err != nil {
			return err
		}
		return run.Get(ctx, &res)
	})
	if err != nil {
		var app *temporal.ApplicationError
		if errors.As(err, &app) {
			return "", imageError(app)
		}
		if isTemporalTimeout(err) {
			e := api.NewError(http.StatusServiceUnavailable, api.CodeImagePullFailed, "resolving image "+ref+" did not finish in time; nothing was created, retry")
			e.Retryable, e.RetryAfterMs = true, pullRetryAfter.Milliseconds()
			return "", e
		}
		return "", fromTemporal(err, "")
	}
	return res.Digest, nil
}

// imageError is the API error of an image failure (resolve or boot).
func imageError(app *temporal.ApplicationError) *api.Error {
	switch app.Type() {
	case contract.ErrImageNotFound:
		return api.NewError(http.StatusNotFound, api.CodeImageNotFound, app.Message())
	case contract.ErrImageAuthFailed:
		return api.NewError(http.StatusUnauthorized, api.CodeImageAuthFailed, app.Message()+"; check the registry's credentials in the workers' BERTH_REGISTRY_AUTH")
	case contract.ErrImageUnsupported:
		return api.NewError(http.StatusUnprocessableEntity, api.CodeImageUnsupported, app.Message())
	}
	e := api.NewError(http.StatusServiceUnavailable, api.CodeImagePullFailed, app.Message())
	e.Retryable, e.RetryAfterMs = true, pullRetryAfter.Milliseconds()
	return e
}
