package contract

// Image errors, as ApplicationError types of ActivityResolveImage and
// ActivityBoot and as API codes: IMAGE_NOT_FOUND (no registry knows the
// ref, or only a host that is gone had it), IMAGE_PULL_FAILED (a registry
// could not be reached or failed: retry), IMAGE_AUTH_FAILED (a registry
// refused the credentials), IMAGE_UNSUPPORTED (an image Berth cannot run
// as a sandbox: the reason says why).
const (
	ErrImageNotFound    = "IMAGE_NOT_FOUND"
	ErrImagePullFailed  = "IMAGE_PULL_FAILED"
	ErrImageAuthFailed  = "IMAGE_AUTH_FAILED"
	ErrImageUnsupported = "IMAGE_UNSUPPORTED"
)

// WorkflowResolveImage (ResolveImageInput -> ResolveImageResult) fixes an
// image ref to a digest for a create, before the name is claimed: a short
// workflow of one ActivityResolveImage, since only workers reach Docker
// and the registries' credentials.
const WorkflowResolveImage = "ResolveImage"

// ActivityResolveImage is the activity of WorkflowResolveImage; any worker
// runs it (the shared queue).
const ActivityResolveImage = "ResolveImage"

// ResolveImageInput is an image ref as a create named it.
type ResolveImageInput struct {
	Ref string `json:"ref"`
}

// ResolveImageResult is what every boot of the sandbox runs: a registry
// digest (name@sha256:…) or the image id of an image only the resolving
// host has.
type ResolveImageResult struct {
	Digest string `json:"digest"`
}

// SignalImagePulling (ImagePulling) is a boot's image pull going on; the
// workflow records it as an image-pulling event.
const SignalImagePulling = "image-pulling"

// ImagePulling is the progress of a boot's image pull: bytes of its layers
// downloaded so far of their total (0 until the registry told the sizes).
type ImagePulling struct {
	Image      string `json:"image"`
	BytesDone  int64  `json:"bytesDone"`
	BytesTotal int64  `json:"bytesTotal"`
}
