package s3blob

import (
	"errors"
	"net/http"

	"github.com/aws/smithy-go"

	"github.com/berthdev/berth/internal/blob"
)

// isPermanentS3Code reports S3 error codes that retrying cannot fix: the
// configuration (credentials, bucket name, policy) must change first.
// RequestTimeout and SlowDown are deliberately absent: they clear up.
func isPermanentS3Code(code string) bool {
	switch code {
	case "NoSuchBucket", "InvalidBucketName",
		"InvalidAccessKeyId", "SignatureDoesNotMatch", "AuthorizationHeaderMalformed",
		"InvalidToken", "ExpiredToken",
		"AccessDenied", "AllAccessDisabled", "AccountProblem",
		"InvalidObjectState": // archived (Glacier) object
		return true
	}
	return false
}

// classifyS3 marks err as not-found or permanent where the S3 response
// says so. Anything without a definitive answer (connection refused,
// timeouts, 5xx, throttling) stays transient.
func classifyS3(err error) error {
	if err == nil {
		return nil
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch code := ae.ErrorCode(); {
		case code == "NoSuchKey":
			return blob.NotFound(err)
		case isPermanentS3Code(code):
			return blob.Permanent(err)
		}
	}
	var se interface{ HTTPStatusCode() int }
	if errors.As(err, &se) {
		switch se.HTTPStatusCode() {
		case http.StatusNotFound:
			// HEAD has no body, so a missing key and a missing bucket both
			// arrive as a bare 404; either way there is nothing to read.
			return blob.NotFound(err)
		case http.StatusUnauthorized, http.StatusForbidden:
			return blob.Permanent(err)
		}
	}
	return err
}
