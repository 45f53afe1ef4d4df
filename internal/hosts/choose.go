package hosts

import (
	"slices"
	"sort"

	"github.com/berthdev/berth/workflows/contract"
)

// Choice is the order in which placement tries hosts for one boot.
type Choice struct {
	// Candidates fit the boot, best first: the preferred host when it may
	// be used, then the others by free capacity, most first.
	Candidates []string
	// PreferredLive: the preferred host announced itself within
	// LostAfter.
	PreferredLive bool
}

// Choose orders the hosts a boot needing need may go to (contract.PlaceInput
// semantics): the preferred host while it is live, not draining, not
// excluded and has room; else the live, undrained, unexcluded hosts with
// room, most free capacity first. A sticky placement takes only the
// preferred host while it is live; when it is not, the placement goes on
// like any other and PreferredLive=false tells the caller that the data
// only that host held is out of reach (the caller's consent decides).
func Choose(hosts []Host, in contract.PlaceInput, need Resources) Choice {
	var ch Choice
	// A warm container of the type is room already counted in Used.
	warm := func(h Host) bool { return h.Warm[in.InstanceType] > 0 }
	usable := func(h Host) bool {
		return h.Live && !h.Draining && !slices.Contains(in.Exclude, h.ID) && (h.Free().Covers(need) || warm(h))
	}
	type scored struct {
		id    string
		warm  bool
		score float64
	}
	var others []scored
	for _, h := range hosts {
		if h.ID == in.PreferHost && in.PreferHost != "" {
			ch.PreferredLive = h.Live
			if usable(h) {
				ch.Candidates = append([]string{h.ID}, ch.Candidates...)
			}
			continue
		}
		if usable(h) {
			others = append(others, scored{h.ID, warm(h), freeAfter(h, need)})
		}
	}
	if in.Sticky && ch.PreferredLive {
		return ch // the preferred host or nothing
	}
	sort.SliceStable(others, func(i, j int) bool {
		if others[i].warm != others[j].warm {
			return others[i].warm // a boot there skips making its container
		}
		if others[i].score != others[j].score {
			return others[i].score > others[j].score
		}
		return others[i].id < others[j].id
	})
	for _, o := range others {
		ch.Candidates = append(ch.Candidates, o.id)
	}
	return ch
}

// freeAfter is the smaller of the CPU and memory fractions left free once
// need is placed: the scarcer resource decides how full a host is.
func freeAfter(h Host, need Resources) float64 {
	left := h.Free().Sub(need)
	frac := func(free, capacity int64) float64 {
		if capacity <= 0 {
			return 0
		}
		return float64(free) / float64(capacity)
	}
	return min(frac(left.MilliCPU, h.Capacity.MilliCPU), frac(left.MemoryMiB, h.Capacity.MemoryMiB))
}
