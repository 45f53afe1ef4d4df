// Package blobstore opens the blob store a URL names. It is the one place
// that links the S3 SDK, so that packages which only use a blob.Store (the
// gateway, backups) do not.
package blobstore

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/blob/s3blob"
	"github.com/berthdev/berth/internal/config"
)

// Open returns the store named by rawURL:
//
//	file:///abs/path        a local directory (created if missing)
//	s3://bucket[/prefix]    an S3-compatible bucket, see s3blob.OpenS3
//
// Errors from a malformed URL are permanent.
func Open(ctx context.Context, rawURL string) (blob.Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, blob.Permanent(fmt.Errorf("blob: parse store URL: %w", err))
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, blob.Permanent(fmt.Errorf("blob: file URL %q must be file:///absolute/path", rawURL))
		}
		if !filepath.IsAbs(u.Path) {
			return nil, blob.Permanent(fmt.Errorf("blob: file URL %q needs an absolute path", rawURL))
		}
		return blob.OpenFile(filepath.Clean(u.Path))
	case "s3":
		if u.Host == "" {
			return nil, blob.Permanent(fmt.Errorf("blob: s3 URL %q has no bucket", rawURL))
		}
		prefix := strings.Trim(u.Path, "/")
		return s3blob.OpenS3(ctx, u.Host, prefix)
	}
	return nil, blob.Permanent(fmt.Errorf("blob: unsupported store URL %q (want file:// or s3://)", rawURL))
}

// OpenBackups opens the configured backup store (creating a file store's
// directory).
func OpenBackups(ctx context.Context, c *config.Config) (blob.Store, error) {
	url, err := c.BackupStoreURL()
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(url, "file://") {
		if err := os.MkdirAll(strings.TrimPrefix(url, "file://"), 0o700); err != nil {
			return nil, err
		}
	}
	store, err := Open(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("backup store %s: %w", url, err)
	}
	return store, nil
}
