// Package workflows holds the Sandbox entity workflow: one long-running,
// deterministic workflow per sandbox. No I/O here; activities do that. What
// callers share with it (names, input, state, view, limits, activity
// types) is package workflows/contract, so they need not import this one.
//
// # Changing the workflow: the GetVersion rule
//
// A sandbox's workflow runs for as long as the sandbox exists (months), so
// a worker running new code replays histories written by old code, and
// must issue exactly the commands (activities, timers, memo and search
// attribute upserts, markers, continue-as-new) those histories recorded.
// TestReplayRecordedHistories replays the real histories in
// testdata/histories and fails on any difference.
//
// When a change needs workflow.GetVersion: whenever, for some history that
// may exist, it would add, remove, reorder or change the kind of a command
// (an activity scheduled where none was, one fewer memo upsert, a timer
// moved, a different activity type). Changes that do not: the content of a
// payload or memo, what an activity does inside, code that only runs on a
// path no recorded run could have taken before (and then record that path).
//
// How: branch on
//
//	v := workflow.GetVersion(ctx, "<change-id>", workflow.DefaultVersion, 1)
//
// with the old behaviour for workflow.DefaultVersion and the new one for
// 1. The change id is a short kebab-case name of the behaviour
// ("stop-without-backup", "env-bounds", "egress-policy",
// "archive-events"), a named constant when used in more than one place,
// and never reused for something else. A later change of the same
// behaviour raises the maximum (…, 1, 2) and keeps the branch for 1.
//
// Never remove an old branch, or lower a minimum above DefaultVersion,
// while a history that took it may still be replayed: any sandbox alive
// since before the change, which in practice means as long as sandboxes
// created before it exist (a run that continued-as-new after the change
// holds the marker, so only their current runs matter). Then record the new
// path's histories (see replay_test.go) and keep the old files.
package workflows
