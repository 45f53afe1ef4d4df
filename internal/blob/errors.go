package blob

import (
	"errors"
	"io/fs"
)

// PermanentError marks an error that retrying cannot fix: bad credentials,
// a missing bucket, access denied, an invalid URL or key. Callers (Temporal
// activities) turn it into a non-retryable failure; every other error is
// presumed transient (network, throttling, 5xx) and worth a retry.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent wraps err as a PermanentError. It returns nil for nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	var pe *PermanentError
	if errors.As(err, &pe) {
		return err
	}
	return &PermanentError{Err: err}
}

// IsPermanent reports whether err (or anything it wraps) is permanent.
// A missing object counts as permanent: S3 and local disks are strongly
// consistent, so asking again will not make it appear.
func IsPermanent(err error) bool {
	if err == nil {
		return false
	}
	var pe *PermanentError
	return errors.As(err, &pe) || errors.Is(err, ErrNotFound)
}

// classifyFS maps local filesystem errors: a missing file is ErrNotFound,
// permission problems are permanent, the rest (ENOSPC, EIO) may clear up.
func classifyFS(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return &notFoundError{err}
	case errors.Is(err, fs.ErrPermission):
		return Permanent(err)
	}
	return err
}

// NotFound wraps err, keeping its text and cause, so that it matches
// errors.Is(err, ErrNotFound); stores use it for their own "no such key".
func NotFound(err error) error { return &notFoundError{err} }

type notFoundError struct{ err error }

func (e *notFoundError) Error() string        { return e.err.Error() }
func (e *notFoundError) Unwrap() error        { return e.err }
func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }
