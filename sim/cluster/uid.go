package cluster

import (
	"crypto/sha256"
	"encoding/binary"
)

// ObjectUIDHash is the hash behind an object's metadata.uid in a state
// dump (statedump.UID): the SHA-256 of kind/namespace/name, so that the
// same run dumps the same bytes.
func ObjectUIDHash(kind, namespace, name string) [sha256.Size]byte {
	return sha256.Sum256([]byte(kind + "/" + namespace + "/" + name))
}

// PodUIDRank orders pods as their dumped uids order as strings: the uid
// is the hash's bytes in hex from the first, so its first 8 bytes read
// big-endian compare the same way (ties beyond them fall to the pod ID).
func PodUIDRank(namespace, name string) uint64 {
	h := ObjectUIDHash("Pod", namespace, name)
	return binary.BigEndian.Uint64(h[:8])
}
