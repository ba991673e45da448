package disruptionfidelity

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	opstatus "github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// The static set: cases of the generator's kind in which one pool with
// nodes is a static NodePool (spec.replicas its node count, limits.nodes
// the same or one more, no weight: the API's rules), the StaticCapacity
// gate on both sides, and some of its NodeClaims drifted (an older
// template hash, KC's Drifted condition some time ago). Upstream's static
// drift (KC disruption StaticDrift) and ours replace each drifted node by a
// new NodeClaim launched first, as many as the Drifted budget and
// limits.nodes allow; at replicas = limits.nodes none can be staged and
// the drifted nodes stay (TerminateFirstDrift off).

// staticSeed sets the static set's streams apart.
const staticSeed = 0x57a71c

// GenerateStatic makes n static cases from seed.
func GenerateStatic(cat *Catalogue, seed uint64, n int) []*Case {
	var out []*Case
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(seed^staticSeed, uint64(i)+1))
		side := rand.New(rand.NewPCG(seed^staticSeed^sideSeed, uint64(i)+1))
		policy := rand.New(rand.NewPCG(seed^staticSeed^policySeed, uint64(i)+1))
		c := generateOne(cat, rng, side, policy, fmt.Sprintf("static-%03d", i))
		makeStatic(c, rand.New(rand.NewPCG(seed^staticSeed^0x5a71c0, uint64(i)+1)))
		out = append(out, c)
	}
	return out
}

// makeStatic turns the pool with the most nodes static and drifts some
// of its NodeClaims.
func makeStatic(c *Case, rng *rand.Rand) {
	count := map[string]int{}
	for _, nc := range c.NodeClaims {
		count[nc.Labels[karpv1.NodePoolLabelKey]]++
	}
	var np *karpv1.NodePool
	for _, p := range c.Pools {
		if count[p.Name] > 0 && (np == nil || count[p.Name] > count[np.Name]) {
			np = p
		}
	}
	if np == nil {
		return
	}
	c.Static = true
	k := int64(count[np.Name])
	np.Spec.Replicas = &k
	np.Spec.Weight = nil
	limit := k
	if rng.IntN(2) == 0 {
		limit = k + 1 + int64(rng.IntN(2))
		c.Shape = appendOnce(c.Shape, "static-room")
	} else {
		c.Shape = appendOnce(c.Shape, "static-at-limit")
	}
	np.Spec.Limits = karpv1.Limits{corev1.ResourceName("nodes"): *resource.NewQuantity(limit, resource.DecimalSI)}
	np.Spec.Disruption.ConsolidationPolicy = ""
	np.Spec.Disruption.ConsolidateAfter = karpv1.NillableDuration{}
	c.Shape = appendOnce(c.Shape, "static")
	stale := strconv.FormatUint(rng.Uint64(), 10)
	for _, nc := range c.NodeClaims {
		if nc.Labels[karpv1.NodePoolLabelKey] != np.Name || rng.IntN(3) != 0 {
			continue
		}
		drifted := false
		for _, cond := range nc.Status.Conditions {
			drifted = drifted || cond.Type == karpv1.ConditionTypeDrifted
		}
		nc.Annotations[NodePoolHashKey] = stale
		if !drifted {
			at := ExportTime.Add(-time.Duration(60+rng.IntN(6*3600)) * time.Second)
			if at.Before(nc.CreationTimestamp.Time) {
				at = nc.CreationTimestamp.Add(2 * time.Minute)
			}
			nc.Status.Conditions = append(nc.Status.Conditions, opstatus.Condition{Type: karpv1.ConditionTypeDrifted, Status: metav1.ConditionTrue,
				Reason: "Drifted", LastTransitionTime: metav1.NewTime(at), ObservedGeneration: 1})
		}
		c.Shape = appendOnce(c.Shape, "static-drift")
	}
}
