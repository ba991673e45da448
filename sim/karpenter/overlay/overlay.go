// Package overlay works out what Karpenter's NodeOverlays do to each
// NodePool's instance types, as KC pkg/controllers/nodeoverlay (v1.15.0)
// builds its instance-type store:
//
//   - Overlays are taken in weight order, higher first, then by name
//     descending (apis.OrderOverlays).
//   - An overlay applies to a pool's instance type when its requirements
//     are compatible with karpenter.sh/nodepool, the pool's template
//     labels and the type's labels, zones and capacity types (a key none
//     of them has matches only NotIn and DoesNotExist); its price then
//     applies to the type's offerings its zone and capacity-type
//     requirements allow, its capacity to the whole type.
//   - The first overlay to set an offering's price wins; one of lower
//     weight leaves it. An extended resource likewise. Two overlays of the
//     same weight on the same offering (price) or resource (capacity)
//     conflict: the second is not applied at all, anywhere (upstream marks
//     it ValidationSucceeded=False, reason Conflict).
//
// The evaluation runs over every instance type a pool's node class
// offers, not only those its requirements allow, as upstream does: a
// conflict on a type the pool never launches still refuses the overlay.
package overlay

import (
	"maps"
	"slices"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// Types are the instance types the overlays are evaluated over.
type Types interface {
	Len() int
	// Name is type t's name, for messages.
	Name(t int) string
	// Label is type t's value of a label key, false when it has none.
	Label(t int, key cluster.Sym) (cluster.Sym, bool)
	// Offerings are type t's offerings that exist.
	Offerings(t int) []Offering
}

// Offering is one offering of a type: its zone and capacity type.
type Offering struct {
	Zone, CapacityType cluster.Sym
}

// Pool is a NodePool as overlays see it.
type Pool struct {
	Name string
	// Labels are karpenter.sh/nodepool and the template's labels.
	Labels cluster.Labels
}

// Keys are the label keys of offerings.
type Keys struct {
	Zone, CapacityType cluster.Sym
}

// Update is what the overlays do to one pool's instance type.
type Update struct {
	// Price is, per offering (Types.Offerings order), the index of the
	// overlay whose price applies, -1 for none; nil when no overlay sets
	// a price on the type.
	Price []int16
	// Capacity are the extended resources the overlays give the type
	// (each replaces the type's own count of it), sorted by name.
	Capacity []apis.ExtendedResource
}

// Status is what became of one overlay.
type Status struct {
	// Types counts the (pool, instance type) pairs it applies to.
	Types int
	// ConflictWith is the overlay of the same weight it conflicts with,
	// -1 for none; a conflicting overlay applies nowhere (Types 0).
	ConflictWith int
	// ConflictPool and ConflictType say where (pool and type indexes),
	// ConflictOn on what: "price" or "capacity".
	ConflictPool, ConflictType int
	ConflictOn                 string
}

// Result is the evaluation of a set of overlays.
type Result struct {
	// Updates are, per pool (index in the pools given), the updates of
	// the types the overlays touch, by type index.
	Updates []map[int]*Update
	// Status is per overlay, in the order given.
	Status []Status
}

// priceSlot is one offering's price update while evaluating.
type priceSlot struct {
	overlay      int // -1: none yet
	lowestWeight int32
	lastBy       int // the overlay that last touched it
}

// capSlot is one type's capacity update while evaluating.
type capSlot struct {
	set          bool
	resources    map[string]int64
	lowestWeight int32
	lowestRes    []string
	lastBy       int
}

type typeState struct {
	price []priceSlot
	cap   capSlot
}

// Evaluate applies overlays (in apis.OrderOverlays order) to pools' types.
func Evaluate(syms *cluster.Symbols, keys Keys, overlays []apis.NodeOverlay, pools []Pool, types Types) Result {
	res := Result{Updates: make([]map[int]*Update, len(pools)), Status: make([]Status, len(overlays))}
	state := make([]map[int]*typeState, len(pools))
	for i := range state {
		state[i] = map[int]*typeState{}
	}
	type hit struct {
		pool, typ int
		offers    []int
	}
	var hits []hit
	var offBuf []int
	for oi := range overlays {
		ov := &overlays[oi]
		st := &res.Status[oi]
		st.ConflictWith = -1
		hits = hits[:0]
		for pi := range pools {
			for t := 0; t < types.Len(); t++ {
				offBuf = matching(syms, keys, ov, &pools[pi], types, t, offBuf[:0])
				if len(offBuf) == 0 {
					continue
				}
				hits = append(hits, hit{pi, t, append([]int(nil), offBuf...)})
				if st.ConflictWith >= 0 {
					continue
				}
				ts := state[pi][t]
				if ts == nil {
					continue
				}
				if by, on := conflict(ov, ts, offBuf); by >= 0 {
					st.ConflictWith, st.ConflictPool, st.ConflictType, st.ConflictOn = by, pi, t, on
				}
			}
		}
		if st.ConflictWith >= 0 {
			continue
		}
		for _, h := range hits {
			ts := state[h.pool][h.typ]
			if ts == nil {
				ts = &typeState{}
				state[h.pool][h.typ] = ts
			}
			store(oi, ov, ts, len(types.Offerings(h.typ)), h.offers)
			st.Types++
		}
	}
	for pi := range pools {
		for t, ts := range state[pi] {
			u := &Update{}
			for _, p := range ts.price {
				if p.overlay >= 0 {
					u.Price = make([]int16, len(ts.price))
					break
				}
			}
			for i, p := range ts.price {
				if u.Price != nil {
					u.Price[i] = int16(p.overlay)
				}
			}
			for _, name := range slices.Sorted(maps.Keys(ts.cap.resources)) {
				u.Capacity = append(u.Capacity, apis.ExtendedResource{Name: name, Count: ts.cap.resources[name]})
			}
			if u.Price == nil && len(u.Capacity) == 0 {
				continue
			}
			if res.Updates[pi] == nil {
				res.Updates[pi] = map[int]*Update{}
			}
			res.Updates[pi][t] = u
		}
	}
	return res
}

// matching returns the offerings of type t in pool p that overlay ov
// applies to (KC getOverlaidOfferings), none when the type does not match.
func matching(syms *cluster.Symbols, keys Keys, ov *apis.NodeOverlay, p *Pool, types Types, t int, out []int) []int {
	offers := types.Offerings(t)
	if len(offers) == 0 {
		return out
	}
	for i := range ov.Requirements {
		r := &ov.Requirements[i]
		switch r.Key {
		case keys.Zone, keys.CapacityType:
			// The type's requirement on the key is In its offerings'
			// values: compatible when one of them meets r.
			ok := false
			for _, of := range offers {
				v := of.Zone
				if r.Key == keys.CapacityType {
					v = of.CapacityType
				}
				ok = ok || r.MatchesValue(syms, v, true)
			}
			if !ok {
				return out
			}
			continue
		}
		v, ok := p.Labels.Get(r.Key)
		if !ok {
			v, ok = types.Label(t, r.Key)
		}
		if !r.MatchesValue(syms, v, ok) {
			return out
		}
	}
	for i, of := range offers {
		ok := true
		for j := range ov.Requirements {
			r := &ov.Requirements[j]
			switch r.Key {
			case keys.Zone:
				ok = ok && r.MatchesValue(syms, of.Zone, true)
			case keys.CapacityType:
				ok = ok && r.MatchesValue(syms, of.CapacityType, true)
			}
		}
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// conflict returns the overlay ov conflicts with on a type it matches
// (offers: its matching offerings) and on what, -1 for none: one of the
// same weight already set a matching offering's price, or one of ov's
// resources.
func conflict(ov *apis.NodeOverlay, ts *typeState, offers []int) (int, string) {
	if ov.Price != nil && ts.price != nil {
		for _, i := range offers {
			if p := ts.price[i]; p.overlay >= 0 && p.lowestWeight == ov.Weight {
				return p.lastBy, "price"
			}
		}
	}
	if len(ov.Capacity) > 0 && ts.cap.set && ts.cap.lowestWeight == ov.Weight {
		for _, r := range ov.Capacity {
			if slices.Contains(ts.cap.lowestRes, r.Name) {
				return ts.cap.lastBy, "capacity"
			}
		}
	}
	return -1, ""
}

// store records overlay oi on a type (KC updateInstanceTypeOffering and
// updateInstanceTypeCapacity): a price no earlier overlay set, the
// resources none gave.
func store(oi int, ov *apis.NodeOverlay, ts *typeState, numOffers int, offers []int) {
	if ov.Price != nil {
		if ts.price == nil {
			ts.price = make([]priceSlot, numOffers)
			for i := range ts.price {
				ts.price[i].overlay = -1
			}
		}
		for _, i := range offers {
			p := &ts.price[i]
			if p.overlay < 0 {
				p.overlay = oi
			}
			p.lowestWeight, p.lastBy = ov.Weight, oi
		}
	}
	if len(ov.Capacity) > 0 {
		if ts.cap.resources == nil {
			ts.cap.resources = map[string]int64{}
		}
		ts.cap.lowestRes = ts.cap.lowestRes[:0]
		for _, r := range ov.Capacity {
			if _, ok := ts.cap.resources[r.Name]; !ok {
				ts.cap.resources[r.Name] = r.Count
			}
			ts.cap.lowestRes = append(ts.cap.lowestRes, r.Name)
		}
		ts.cap.set, ts.cap.lowestWeight, ts.cap.lastBy = true, ov.Weight, oi
	}
}
