package contract

import (
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

// ViewFromMemo reads a sandbox's current view from its workflow's memo
// (MemoState). ok is false before the workflow's first task wrote one; an
// error means the memo holds something that is no View.
func ViewFromMemo(fields map[string]*commonpb.Payload) (v View, ok bool, err error) {
	p, ok := fields[MemoState]
	if !ok {
		return View{}, false, nil
	}
	if err := converter.GetDefaultDataConverter().FromPayload(p, &v); err != nil {
		return View{}, false, fmt.Errorf("read memo %s: %w", MemoState, err)
	}
	return v, true, nil
}
