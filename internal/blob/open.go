package blob

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// Open returns the store named by rawURL:
//
//	file:///abs/path        a local directory (created if missing)
//	s3://bucket[/prefix]    an S3-compatible bucket, see OpenS3
//
// Errors from a malformed URL are permanent.
func Open(ctx context.Context, rawURL string) (Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, Permanent(fmt.Errorf("blob: parse store URL: %w", err))
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, Permanent(fmt.Errorf("blob: file URL %q must be file:///absolute/path", rawURL))
		}
		if !filepath.IsAbs(u.Path) {
			return nil, Permanent(fmt.Errorf("blob: file URL %q needs an absolute path", rawURL))
		}
		return OpenFile(filepath.Clean(u.Path))
	case "s3":
		if u.Host == "" {
			return nil, Permanent(fmt.Errorf("blob: s3 URL %q has no bucket", rawURL))
		}
		prefix := strings.Trim(u.Path, "/")
		return OpenS3(ctx, u.Host, prefix)
	}
	return nil, Permanent(fmt.Errorf("blob: unsupported store URL %q (want file:// or s3://)", rawURL))
}
