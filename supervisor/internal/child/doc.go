// Package child is what processes and terminals share about the children
// the supervisor forks: preparing a command (argv, cwd, env layers,
// executable lookup), mapping fork failures to API errors, numbering and
// tracking children for the reaper, and their exit status.
package child
