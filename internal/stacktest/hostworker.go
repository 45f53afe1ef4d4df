package stacktest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// StartHostWorker starts one more `berth worker` that is another Docker
// host of this stack, hostID, on the same Docker engine: its own data
// directory, the stack's backup store (where hosts announce themselves),
// its containers and volumes labelled io.berth.host=hostID, so it judges
// only its own. env is added last (it overrides). The caller stops it and
// removes its objects (RemoveHostObjects); a real multi-host layout gives
// each host its own dockerd.
func (s *Stack) StartHostWorker(hostID string, env ...string) (*Replica, error) {
	dir := filepath.Join(s.Dir, "host-"+hostID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	r := &Replica{s: s, role: "worker", log: "worker-" + hostID}
	r.env = append(append([]string{}, s.env...), "BERTH_HOST_ID="+hostID, "BERTH_DATA_DIR="+dir)
	if !slices.ContainsFunc(s.env, func(kv string) bool { return strings.HasPrefix(kv, "BERTH_BACKUP_URL=") }) {
		// The stack's default store lives in its data directory.
		r.env = append(r.env, "BERTH_BACKUP_URL=file://"+filepath.Join(s.Dir, "data", "backups"))
	}
	r.env = append(r.env, env...)
	return r, r.Start()
}
