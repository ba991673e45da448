package apis

import (
	"fmt"
	"regexp"
	"sort"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/manifest"
)

// ReservationTerm is one of an EC2NodeClass's
// capacityReservationSelectorTerms (KA CapacityReservationSelectorTerm):
// an ID, or tags (a value of "*" matches any) with an optional owner and
// instance match criteria. Terms are ORed.
type ReservationTerm struct {
	ID                    string
	OwnerID               string
	Tags                  map[string]string
	InstanceMatchCriteria string
}

// Selects reports whether the term selects reservation r (KA
// QueriesFromSelectorTerms and DescribeCapacityReservations' filters).
// An empty OwnerID of r is the cluster's own account: a term's ownerID
// names another account's reservations shared with it, so it selects
// only reservations with that owner.
func (t *ReservationTerm) Selects(r *cloud.Reservation) bool {
	if t.ID != "" {
		return r.ID == t.ID
	}
	if t.OwnerID != "" && t.OwnerID != r.OwnerID {
		return false
	}
	if t.InstanceMatchCriteria != "" && t.InstanceMatchCriteria != r.MatchCriteria {
		return false
	}
	for k, v := range t.Tags {
		have, ok := r.Tags[k]
		if !ok || (v != "*" && v != have) {
			return false
		}
	}
	return true
}

// SelectsReservation reports whether any of the class's terms selects r.
func (nc *NodeClass) SelectsReservation(r *cloud.Reservation) bool {
	for i := range nc.ReservationTerms {
		if nc.ReservationTerms[i].Selects(r) {
			return true
		}
	}
	return false
}

var (
	reservationIDRe = regexp.MustCompile(`^cr-[0-9a-z]+$`)
	ownerIDRe       = regexp.MustCompile(`^[0-9]{12}$`)
)

type reservationTermSpec struct {
	Tags                  map[string]string `json:"tags,omitempty"`
	ID                    *string           `json:"id,omitempty"`
	OwnerID               *string           `json:"ownerID,omitempty"`
	InstanceMatchCriteria *string           `json:"instanceMatchCriteria,omitempty"`
}

// reservationTerms compiles capacityReservationSelectorTerms with the
// CRD's rules (KA ec2nodeclass.go): at most 30 terms; each has tags, id
// or instanceMatchCriteria; id goes alone; the id and owner patterns; the
// criteria enum; at most 20 tags, none empty.
func (c *compiler) reservationTerms(d *manifest.Document, path string, raw []reservationTermSpec) []ReservationTerm {
	if len(raw) > 30 {
		c.fail(d, path, "select with at most 30 terms", "%d terms; the CRD allows at most 30", len(raw))
	}
	var out []ReservationTerm
	for i, s := range raw {
		p := fmt.Sprintf("%s[%d]", path, i)
		t := ReservationTerm{Tags: s.Tags}
		if s.ID != nil {
			t.ID = *s.ID
			if !reservationIDRe.MatchString(t.ID) {
				c.fail(d, p+".id", "write the reservation's id, e.g. cr-0123456789abcdef0", "%q does not match ^cr-[0-9a-z]+$", t.ID)
			}
			if s.Tags != nil || s.OwnerID != nil || s.InstanceMatchCriteria != nil {
				c.fail(d, p, "put id in a term of its own", "'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term")
			}
		}
		if s.OwnerID != nil {
			t.OwnerID = *s.OwnerID
			if !ownerIDRe.MatchString(t.OwnerID) {
				c.fail(d, p+".ownerID", "write a 12-digit AWS account id", "%q does not match ^[0-9]{12}$", t.OwnerID)
			}
		}
		if s.InstanceMatchCriteria != nil {
			t.InstanceMatchCriteria = *s.InstanceMatchCriteria
			if t.InstanceMatchCriteria != "open" && t.InstanceMatchCriteria != "targeted" {
				c.fail(d, p+".instanceMatchCriteria", "use open or targeted", "unknown instance match criteria %q", t.InstanceMatchCriteria)
			}
		}
		if s.Tags == nil && s.ID == nil && s.InstanceMatchCriteria == nil {
			c.fail(d, p, "give tags, id or instanceMatchCriteria", "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']")
		}
		if len(s.Tags) > 20 {
			c.fail(d, p+".tags", "select with at most 20 tags", "%d tags; the CRD allows at most 20", len(s.Tags))
		}
		keys := make([]string, 0, len(s.Tags))
		for k := range s.Tags {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "" || s.Tags[k] == "" {
				c.fail(d, p+".tags", "give every tag a key and a value (\"*\" for any value)", "empty tag keys or values aren't supported")
				break
			}
		}
		out = append(out, t)
	}
	return out
}
