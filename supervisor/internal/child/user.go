package child

import (
	"fmt"
	"os/user"
	"strconv"
	"strings"
	"syscall"
)

// Identity is a user processes run as: the image's USER by default, or a
// request's `user`.
type Identity struct {
	Spec string // as given: "name", "uid", "name:group", "uid:gid"
	Cred *syscall.Credential
	Home string
}

// Root is the identity of the supervisor itself.
var Root = Identity{Spec: "root", Home: "/root"}

// IsRoot reports whether the identity is uid 0 (no credential to switch).
func (id Identity) IsRoot() bool { return id.Cred == nil || id.Cred.Uid == 0 }

// ResolveUser resolves a user the way Docker resolves an image's USER,
// against the container's /etc/passwd and /etc/group: a name must have a
// passwd entry; a number needs none (then its group is 0 and its home /);
// a group, by name or number, may follow a colon. Supplementary groups
// are the user's memberships in /etc/group.
func ResolveUser(spec string) (Identity, error) {
	name, group, hasGroup := strings.Cut(spec, ":")
	if name == "" && !hasGroup || spec == "root" || spec == "0" || spec == "0:0" {
		return Root, nil
	}
	if name == "" {
		return Identity{}, fmt.Errorf("user %q: no user before the colon", spec)
	}
	id := Identity{Spec: spec, Home: "/", Cred: &syscall.Credential{}}
	var u *user.User
	if n, err := strconv.ParseUint(name, 10, 32); err == nil {
		id.Cred.Uid = uint32(n)
		u, _ = user.LookupId(name) // a number needs no entry
	} else {
		if u, err = user.Lookup(name); err != nil {
			return Identity{}, fmt.Errorf("user %q: no such user in the image's /etc/passwd", name)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		id.Cred.Uid = uint32(uid)
	}
	if u != nil {
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		id.Cred.Gid = uint32(gid)
		if u.HomeDir != "" {
			id.Home = u.HomeDir
		}
		if gids, err := u.GroupIds(); err == nil {
			for _, g := range gids {
				if n, err := strconv.ParseUint(g, 10, 32); err == nil && uint32(n) != id.Cred.Gid {
					id.Cred.Groups = append(id.Cred.Groups, uint32(n))
				}
			}
		}
	}
	if hasGroup {
		if n, err := strconv.ParseUint(group, 10, 32); err == nil {
			id.Cred.Gid = uint32(n)
		} else if g, err := user.LookupGroup(group); err == nil {
			n, _ := strconv.ParseUint(g.Gid, 10, 32)
			id.Cred.Gid = uint32(n)
		} else {
			return Identity{}, fmt.Errorf("user %q: no such group %q in the image's /etc/group", spec, group)
		}
		id.Cred.Groups = nil // as Docker: an explicit group replaces the memberships
	}
	if id.Cred.Groups == nil {
		id.Cred.Groups = []uint32{} // setgroups([]) drops the supervisor's own
	}
	return id, nil
}
