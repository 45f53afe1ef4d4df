package contract

// CreateSpec is what a create asks for: the first run's input (Input.Spec)
// and the memo the gateway compares a repeated create with (MemoSpec). The
// catalogue's create-requested event carries the same fields
// (schemas.CreateRequested), but the event is the stream's and this is the
// workflow's: either may grow a field the other does not.
type CreateSpec struct {
	Path         string `json:"path"`
	InstanceType string `json:"instanceType"`
	SleepAfter   string `json:"sleepAfter,omitempty"`
	KeepAlive    *bool  `json:"keepAlive,omitempty"`
	// DozeAfter: absent or "0s", the sandbox never dozes.
	DozeAfter string            `json:"dozeAfter,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	// Image is the sandbox's own image as the create named it; ImageDigest
	// is what it resolved to then, which every boot runs (a tag that moves
	// later changes nothing). Both absent: the instance type's image.
	Image       string `json:"image,omitempty"`
	ImageDigest string `json:"imageDigest,omitempty"`
}
