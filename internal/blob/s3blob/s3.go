package s3blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/tracing"
)

// Environment read by OpenS3 on top of the standard AWS chain
// (AWS_ACCESS_KEY_ID, AWS_PROFILE, AWS_ENDPOINT_URL_S3, ...).
const (
	EnvS3Endpoint  = "BERTH_S3_ENDPOINT"   // custom endpoint: R2, MinIO, versitygw
	EnvS3PathStyle = "BERTH_S3_PATH_STYLE" // "false" keeps virtual-host style with an endpoint
	defaultRegion  = "us-east-1"
)

// Upload tuning. 16 MiB parts allow objects up to 160 GB within S3's
// 10,000-part limit; three parts in flight (plus one filling) bound memory
// at ~64 MiB per upload while keeping the pipe to S3 busy.
const (
	partSize        = 16 << 20
	partConcurrency = 3
)

// S3Store keeps objects in a bucket under an optional key prefix.
type S3Store struct {
	client *s3.Client
	tm     *transfermanager.Client
	bucket string
	prefix string // "" or ends in "/"
}

// OpenS3 builds a client from the standard AWS config chain plus
// BERTH_S3_ENDPOINT / BERTH_S3_PATH_STYLE, defaulting the region to
// us-east-1 (R2, MinIO and versitygw ignore it but SigV4 needs one).
// It does not contact the server: errors surface on first use.
func OpenS3(ctx context.Context, bucket, prefix string) (*S3Store, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, blob.Permanent(fmt.Errorf("blob: load AWS config: %w", err))
	}
	if cfg.Region == "" {
		cfg.Region = defaultRegion
	}
	endpoint := os.Getenv(EnvS3Endpoint)
	pathStyle := endpoint != ""
	if v := os.Getenv(EnvS3PathStyle); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, blob.Permanent(fmt.Errorf("blob: %s=%q: %w", EnvS3PathStyle, v, err))
		}
		pathStyle = b
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
		o.UsePathStyle = pathStyle
		if tracing.Enabled() {
			// Each S3 call a span of the backup or restore it serves.
			o.HTTPClient = &http.Client{Transport: tracing.Transport(awshttp.NewBuildableClient().GetTransport(), "s3", false)}
		}
		// Integrity is end-to-end via the backup manifest's sha256; the
		// SDK's default CRC32 trailers are not accepted by every
		// S3-compatible server, so only send checksums where required.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	})
	tm := transfermanager.New(client, func(o *transfermanager.Options) {
		o.PartSizeBytes = partSize
		o.MultipartUploadThreshold = partSize
		o.Concurrency = partConcurrency
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	})
	if prefix != "" {
		prefix = strings.Trim(prefix, "/") + "/"
	}
	return &S3Store{client: client, tm: tm, bucket: bucket, prefix: prefix}, nil
}

// Put streams r as a multipart upload (a single PutObject for small
// objects). S3 publishes a multipart object only on CompleteMultipartUpload,
// and the transfer manager aborts the upload on error, so a failed Put
// leaves no object. A crash mid-upload can leave an incomplete upload that
// only a bucket lifecycle rule (AbortIncompleteMultipartUpload) reclaims.
func (s *S3Store) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	if err := blob.CheckKey(key); err != nil {
		return 0, err
	}
	cr := &countingReader{r: r}
	// The transfer manager seeks a body that implements io.Seeker to size
	// it; hide that so a file handed in is still streamed part by part.
	_, err := s.tm.UploadObject(ctx, &transfermanager.UploadObjectInput{
		Bucket: aws.String(s.bucket),
		Key:    aws.String(s.prefix + key),
		Body:   struct{ io.Reader }{cr},
	})
	if err != nil {
		return cr.n, classifyS3(fmt.Errorf("blob: put s3://%s/%s%s: %w", s.bucket, s.prefix, key, err))
	}
	return cr.n, nil
}

// Get streams the object with one GetObject. (The transfer manager's
// parallel GetObject buffers ranges and polls; a single stream is enough to
// outrun tar extraction and keeps memory flat.)
func (s *S3Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := blob.CheckKey(key); err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{
		Bucket: aws.String(s.bucket),
		Key:    aws.String(s.prefix + key),
	})
	if err != nil {
		return nil, classifyS3(fmt.Errorf("blob: get s3://%s/%s%s: %w", s.bucket, s.prefix, key, err))
	}
	return out.Body, nil
}

func (s *S3Store) Stat(ctx context.Context, key string) (blob.Object, error) {
	if err := blob.CheckKey(key); err != nil {
		return blob.Object{}, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{
		Bucket: aws.String(s.bucket),
		Key:    aws.String(s.prefix + key),
	})
	if err != nil {
		return blob.Object{}, classifyS3(fmt.Errorf("blob: stat s3://%s/%s%s: %w", s.bucket, s.prefix, key, err))
	}
	return blob.Object{Key: key, Size: aws.ToInt64(out.ContentLength), ModTime: aws.ToTime(out.LastModified)}, nil
}

func (s *S3Store) Delete(ctx context.Context, key string) error {
	if err := blob.CheckKey(key); err != nil {
		return err
	}
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{
		Bucket: aws.String(s.bucket),
		Key:    aws.String(s.prefix + key),
	})
	if err = classifyS3(err); err != nil && !errors.Is(err, blob.ErrNotFound) {
		return fmt.Errorf("blob: delete s3://%s/%s%s: %w", s.bucket, s.prefix, key, err)
	}
	return nil
}

func (s *S3Store) List(ctx context.Context, prefix string) ([]blob.Object, error) {
	var out []blob.Object
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket: aws.String(s.bucket),
		Prefix: aws.String(s.prefix + prefix),
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, classifyS3(fmt.Errorf("blob: list s3://%s/%s%s: %w", s.bucket, s.prefix, prefix, err))
		}
		for _, o := range page.Contents {
			key := strings.TrimPrefix(aws.ToString(o.Key), s.prefix)
			if blob.CheckKey(key) != nil {
				continue // written by someone else under a name we could not address
			}
			out = append(out, blob.Object{Key: key, Size: aws.ToInt64(o.Size), ModTime: aws.ToTime(o.LastModified)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
