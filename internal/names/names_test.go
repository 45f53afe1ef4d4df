package names

import (
	"strings"
	"testing"
)

func TestValidIDs(t *testing.T) {
	if !ValidBootID("0b6c1e3a-5f1d-4b8e-9c2a-7d3e4f5a6b7c") || ValidBootID("0B6C1E3A-5F1D-4B8E-9C2A-7D3E4F5A6B7C") || ValidBootID("../x") {
		t.Error("boot id")
	}
	if !ValidContainerID(strings.Repeat("ab", 32)) || ValidContainerID("berth-x") || ValidContainerID("../../x") {
		t.Error("container id")
	}
}
