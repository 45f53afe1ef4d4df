package secrets

import (
	"errors"
	"fmt"
	"strings"
)

// KeyUse is how many objects of the store each key has sealed.
type KeyUse struct {
	Current string         // the id of the key that seals
	Secrets map[string]int // by key id ("" for objects sealed before ids)
	Sealed  map[string]int // the host-side sealed objects (egress CAs)
}

// Keys counts the objects each key sealed: a retired key may go once it
// seals none.
func (s *BlobStore) Keys() (KeyUse, error) {
	u := KeyUse{Current: s.ring.current().id, Secrets: map[string]int{}, Sealed: map[string]int{}}
	recs, err := s.List()
	if err != nil {
		return u, err
	}
	for _, r := range recs {
		fr, err := s.read(r.Name)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return u, err
		}
		u.Secrets[fr.KeyID]++
	}
	return u, s.eachSealed(func(key string, o sealedObject) error { u.Sealed[o.KeyID]++; return nil })
}

// Rekey re-seals under the current key every secret and sealed object a
// retired key sealed, keeping each secret's record and version. It returns
// how many it re-sealed. Run it when no secret is being changed: a PUT
// through another gateway between its read and its write would be undone.
func (s *BlobStore) Rekey() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.ring.current().id
	recs, err := s.List()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range recs {
		fr, err := s.read(r.Name)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return n, err
		}
		if fr.KeyID == cur {
			continue
		}
		v, err := s.ring.open(fr.KeyID, fr.Nonce, fr.Ciphertext, additionalData(fr.Record))
		if err != nil {
			return n, fmt.Errorf("secrets: %q %v", r.Name, err)
		}
		if err := s.write(fr.Record, v); err != nil {
			return n, err
		}
		n++
	}
	err = s.eachSealed(func(key string, o sealedObject) error {
		if o.KeyID == cur {
			return nil
		}
		if _, err := s.GetSealed(key); err != nil { // re-seals what it opens
			return err
		}
		n++
		return nil
	})
	return n, err
}

// eachSealed calls fn with every host-side sealed object.
func (s *BlobStore) eachSealed(fn func(key string, o sealedObject) error) error {
	ctx, cancel := s.ctx()
	defer cancel()
	objs, err := s.store.List(ctx, SealedPrefix)
	if err != nil {
		return fmt.Errorf("secrets: list sealed objects: %w", err)
	}
	for _, obj := range objs {
		if !strings.HasSuffix(obj.Key, ".sealed") {
			continue
		}
		o, err := s.readSealed(obj.Key)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if err := fn(obj.Key, o); err != nil {
			return err
		}
	}
	return nil
}
