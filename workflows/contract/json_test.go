package contract

import (
	"encoding/json"
	"testing"
	"time"
)

// samples fills every field of the types that history, the state memo and
// the continue-as-new input hold.
func samples() map[string]any {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	v, keep, minute := "v", true, time.Minute
	c := Container{ID: "cid", Host: "h1", Addr: "10.0.0.2:7070", BootID: "bid"}
	intent := Intent{Seq: 3, Op: OpStart, Configure: &ConfigureRequest{Env: map[string]*string{"A": &v, "B": nil}},
		Patch: &PatchRequest{SleepAfter: &minute, KeepAlive: &keep},
		Start: &StartRequest{BackupID: "b1", Size: BackupSize{Bytes: 10, Files: 2}}, FromUpdate: true}
	st := State{Config: Config{Name: "s1", InstanceType: "basic", SleepAfter: minute, KeepAlive: true, Env: map[string]string{"A": "v"}},
		Status: StatusRunning, Container: &c, Host: "h1", LastBackupID: "b0", LastBackupSize: BackupSize{Bytes: 5, Files: 1},
		NextOffset: 7, LastEvent: "started", CreatedAt: at, UpdatedAt: at, Pending: []Intent{intent}, IntentSeq: 3}
	return map[string]any{
		"input": Input{State: &st, ContinueAsNewAfter: 60}, // Spec (CreateSpec) is left out, as before it had a type of its own
		"view":  st.View(),
		"boot": BootInput{Sandbox: "s1", InstanceType: "basic", BootID: "bid", Env: map[string]string{"A": "v"},
			VolumeHost: "h1", RestoreBackupID: "b0", ForceRestore: true},
		"bootResult": BootResult{Container: c, RestoredBackupID: "b0"},
		"snapshot":   SnapshotResult{BackupID: "b1", Bytes: 1, Files: 2},
		"stop":       StopInput{Sandbox: "s1", Container: c, SkipBackup: true},
		"stopResult": StopResult{BackupID: "b1", BackupError: "e", Bytes: 1, Files: 2},
		"destroy":    DestroyInput{Sandbox: "s1"},
		"env":        EnvInput{Container: c, Env: map[string]string{"A": "v"}},
		"exit":       Exit{Code: 137, OOMKilled: true, Reason: "r"},
		"idle":       Idle{Reachable: true, IdleMs: 5},
	}
}

// Recorded histories, running workflows and the gateway's reads of the
// state memo hold these JSON shapes: a renamed field would silently read
// as empty. Add fields freely (and here); never rename one.
func TestJSONFieldNamesAreStable(t *testing.T) {
	want := map[string]string{
		"boot":       `{"sandbox":"s1","instanceType":"basic","bootId":"bid","env":{"A":"v"},"volumeHost":"h1","restoreBackupId":"b0","forceRestore":true}`,
		"bootResult": `{"container":{"id":"cid","host":"h1","addr":"10.0.0.2:7070","bootId":"bid"},"restoredBackupId":"b0"}`,
		"destroy":    `{"sandbox":"s1"}`,
		"env":        `{"container":{"id":"cid","host":"h1","addr":"10.0.0.2:7070","bootId":"bid"},"env":{"A":"v"}}`,
		"exit":       `{"code":137,"oomKilled":true,"reason":"r"}`,
		"idle":       `{"reachable":true,"idleMs":5}`,
		"input":      `{"state":{"config":{"name":"s1","instanceType":"basic","sleepAfter":60000000000,"keepAlive":true,"env":{"A":"v"}},"status":"running","container":{"id":"cid","host":"h1","addr":"10.0.0.2:7070","bootId":"bid"},"host":"h1","lastBackupId":"b0","lastBackupSize":{"bytes":5,"files":1},"nextOffset":7,"lastEvent":"started","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","pending":[{"seq":3,"op":"start","configure":{"env":{"A":"v","B":null}},"patch":{"sleepAfter":60000000000,"keepAlive":true},"start":{"backupId":"b1","size":{"bytes":10,"files":2}},"fromUpdate":true}],"intentSeq":3},"continueAsNewAfter":60}`,
		"snapshot":   `{"backupId":"b1","bytes":1,"files":2}`,
		"stop":       `{"sandbox":"s1","container":{"id":"cid","host":"h1","addr":"10.0.0.2:7070","bootId":"bid"},"skipBackup":true}`,
		"stopResult": `{"backupId":"b1","backupError":"e","bytes":1,"files":2}`,
		"view":       `{"name":"s1","instanceType":"basic","status":"running","sleepAfter":"1m0s","keepAlive":true,"env":{"A":"v"},"lastBackupId":"b0","host":"h1","container":{"id":"cid","host":"h1","addr":"10.0.0.2:7070","bootId":"bid"},"lastEvent":"started","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z"}`,
	}
	for name, v := range samples() {
		got, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w, ok := want[name]; !ok || string(got) != w {
			t.Errorf("%s:\n got %s\nwant %s", name, got, w)
		}
	}
}
