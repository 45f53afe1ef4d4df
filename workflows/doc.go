// Package workflows holds the Sandbox entity workflow: one long-running,
// deterministic workflow per sandbox. No I/O here; activities do that. What
// callers share with it (names, input, state, view, limits, activity
// types) is package workflows/contract, so they need not import this one.
package workflows
