package s3blob_test

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/blobstore"
	"github.com/berthdev/berth/internal/s3test"
	"github.com/stretchr/testify/require"
)

func TestS3ErrorsArePermanentOrTransient(t *testing.T) {
	srv := s3test.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	put := func(url string) error {
		st, err := blobstore.Open(ctx, url)
		require.NoError(t, err)
		_, err = st.Put(ctx, "sb/x", bytes.NewReader([]byte("x")))
		return err
	}
	list := func(url string) error {
		st, err := blobstore.Open(ctx, url)
		require.NoError(t, err)
		_, err = st.List(ctx, "sb/")
		return err
	}

	require.NoError(t, put(srv.URL))

	t.Run("missing bucket is permanent", func(t *testing.T) {
		for _, op := range []func(string) error{put, list} {
			err := op("s3://no-such-bucket-berth/p")
			require.Error(t, err)
			require.True(t, blob.IsPermanent(err), "%v", err)
		}
	})
	t.Run("wrong secret is permanent", func(t *testing.T) {
		t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong-secret")
		err := put(srv.URL)
		require.Error(t, err)
		require.True(t, blob.IsPermanent(err), "%v", err)
	})
	t.Run("unknown access key is permanent", func(t *testing.T) {
		t.Setenv("AWS_ACCESS_KEY_ID", "nobody")
		err := list(srv.URL)
		require.Error(t, err)
		require.True(t, blob.IsPermanent(err), "%v", err)
	})
	t.Run("unreachable endpoint is transient", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		require.NoError(t, l.Close()) // nothing listens there now
		t.Setenv("BERTH_S3_ENDPOINT", "http://"+addr)
		err = put(srv.URL)
		require.Error(t, err)
		require.False(t, blob.IsPermanent(err), "%v", err)
	})
	t.Run("bad URLs are permanent", func(t *testing.T) {
		for _, u := range []string{"ftp://x/y", "s3:///nobucket", "file://relative/path", "file:relative"} {
			_, err := blobstore.Open(ctx, u)
			require.Error(t, err, u)
			require.True(t, blob.IsPermanent(err), "%s: %v", u, err)
		}
	})
}
