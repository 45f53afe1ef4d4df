package egress

import (
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
)

// DNSCacheSize bounds the resolver's cache, in answers.
const DNSCacheSize = 4096

// Cached answers live at most this long whatever their TTL says, and
// negative answers (NXDOMAIN, no data) at most negativeTTL: a name that
// starts to exist is seen soon.
const (
	maxCacheTTL = 5 * time.Minute
	negativeTTL = 30 * time.Second
)

// dnsCache keeps upstream answers for their TTL. It is consulted only
// after the policy allowed the name, so a policy change applies to the
// next lookup: a name the new policy refuses is refused before the cache
// is read, and one it allows is answered from the cache as before. The
// answers are the same for every sandbox (they come from one upstream),
// so one cache serves them all.
type dnsCache struct {
	mu   sync.Mutex
	max  int
	m    map[cacheKey]*cached
	now  func() time.Time
	hits uint64
}

// cacheKey is what makes two queries share an answer: the question, the
// transport (a UDP answer may be truncated, a TCP one too big for UDP) and
// the EDNS parameters the upstream answered under.
type cacheKey struct {
	name          string // lower case
	qtype, qclass uint16
	tcp           bool
	edns          bool
	do            bool
	udpSize       uint16
}

type cached struct {
	msg     *dns.Msg
	stored  time.Time
	expires time.Time
}

func newDNSCache(max int) *dnsCache {
	return &dnsCache{max: max, m: map[cacheKey]*cached{}, now: time.Now}
}

func keyOf(req *dns.Msg, tcp bool) cacheKey {
	q := req.Question[0]
	k := cacheKey{name: strings.ToLower(q.Name), qtype: q.Qtype, qclass: q.Qclass, tcp: tcp}
	if o := req.IsEdns0(); o != nil {
		k.edns, k.do, k.udpSize = true, o.Do(), o.UDPSize()
	}
	return k
}

// get returns a copy of the cached answer to req, its TTLs lowered by the
// time it spent in the cache, or nil.
func (c *dnsCache) get(req *dns.Msg, tcp bool) *dns.Msg {
	k := keyOf(req, tcp)
	c.mu.Lock()
	e := c.m[k]
	now := c.now()
	if e != nil && !now.Before(e.expires) {
		delete(c.m, k)
		e = nil
	}
	if e == nil {
		c.mu.Unlock()
		return nil
	}
	c.hits++
	msg, stored := e.msg.Copy(), e.stored
	c.mu.Unlock()
	age := uint32(now.Sub(stored) / time.Second)
	for _, sec := range [][]dns.RR{msg.Answer, msg.Ns, msg.Extra} {
		for _, rr := range sec {
			if h := rr.Header(); h.Rrtype != dns.TypeOPT {
				h.Ttl = max(h.Ttl, age) - age
			}
		}
	}
	msg.Id = req.Id
	msg.Question = req.Question // the client's own spelling (0x20 case)
	return msg
}

// put stores resp, an upstream answer to req, when it may be reused.
func (c *dnsCache) put(req, resp *dns.Msg, tcp bool) {
	ttl, ok := cacheTTL(resp)
	if !ok || ttl <= 0 {
		return
	}
	k := keyOf(req, tcp)
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, exists := c.m[k]; !exists && len(c.m) >= c.max {
		c.evict(now)
	}
	c.m[k] = &cached{msg: resp.Copy(), stored: now, expires: now.Add(ttl)}
}

// evict drops expired answers, or if none has expired the one closest to
// expiry (map order makes the scan cheap enough at this size: it runs only
// when the cache is full); the caller holds mu.
func (c *dnsCache) evict(now time.Time) {
	var victim cacheKey
	var soonest time.Time
	for k, e := range c.m {
		if !now.Before(e.expires) {
			delete(c.m, k)
			continue
		}
		if soonest.IsZero() || e.expires.Before(soonest) {
			victim, soonest = k, e.expires
		}
	}
	if len(c.m) >= c.max {
		delete(c.m, victim)
	}
}

// cacheTTL is how long resp may be reused: the lowest TTL of its answer
// section, or for a negative answer its SOA's (RFC 2308), capped. Errors
// other than NXDOMAIN and truncated answers are not cached.
func cacheTTL(resp *dns.Msg) (time.Duration, bool) {
	if resp.Truncated || (resp.Rcode != dns.RcodeSuccess && resp.Rcode != dns.RcodeNameError) {
		return 0, false
	}
	if resp.Rcode == dns.RcodeSuccess && len(resp.Answer) > 0 {
		low := uint32(1<<32 - 1)
		for _, rr := range resp.Answer {
			low = min(low, rr.Header().Ttl)
		}
		return min(time.Duration(low)*time.Second, maxCacheTTL), true
	}
	for _, rr := range resp.Ns {
		if soa, ok := rr.(*dns.SOA); ok {
			return min(time.Duration(min(soa.Hdr.Ttl, soa.Minttl))*time.Second, negativeTTL), true
		}
	}
	return 0, false // a negative answer without a SOA: not cached (RFC 2308 §5)
}

// len is the number of answers held.
func (c *dnsCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
