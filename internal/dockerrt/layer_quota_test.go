package dockerrt

import "testing"

// TestProjectQuotaOfTheDataRootsFileSystem: Docker's size limit needs the
// data root's xfs mounted with project quotas; an xfs without them must
// not be reported as bounded by quota.
func TestProjectQuotaOfTheDataRootsFileSystem(t *testing.T) {
	const mountinfo = `22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
90 22 7:3 / /srv/xfsq rw,relatime shared:40 - xfs /dev/loop3 rw,attr2,inode64,logbufs=8,logbsize=32k,prjquota
91 22 7:4 / /srv/xfs rw,relatime shared:41 - xfs /dev/loop4 rw,attr2,inode64,logbufs=8,logbsize=32k,noquota
92 91 7:5 / /srv/xfs/inner rw,relatime shared:42 - xfs /dev/loop5 rw,attr2,pquota`
	for dir, want := range map[string]bool{
		"/srv/xfsq/docker":      true,
		"/srv/xfs/docker":       false,
		"/srv/xfs/inner/docker": true,
		"/srv/xfsqq/docker":     false, // a prefix of another mount's name is not inside it
		"/var/lib/docker":       false,
		"":                      false,
	} {
		if got := projectQuotaIn(mountinfo, dir); got != want {
			t.Errorf("%q: got %v, want %v", dir, got, want)
		}
	}
}
