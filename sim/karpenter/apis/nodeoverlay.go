package apis

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/manifest"
)

// KindNodeOverlay is Karpenter's NodeOverlay (karpenter.sh/v1alpha1,
// alpha since v1.7, feature gate NodeOverlay).
const (
	KindNodeOverlay      = "NodeOverlay"
	APIVersionV1alpha1   = "karpenter.sh/v1alpha1"
	maxOverlayConditions = 100 // CRD maxItems of spec.requirements
)

// --- karpenter.sh/v1alpha1 NodeOverlay (KC pkg/apis/v1alpha1, v1.15.0) ---

type nodeOverlayV1alpha1 struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       *nodeOverlaySpec  `json:"spec"`
	Status     json.RawMessage   `json:"status,omitempty"`
}

type nodeOverlaySpec struct {
	Requirements    *[]overlayRequirement        `json:"requirements"`
	PriceAdjustment *string                      `json:"priceAdjustment,omitempty"`
	Price           *string                      `json:"price,omitempty"`
	Capacity        map[string]resource.Quantity `json:"capacity,omitempty"`
	Weight          *int32                       `json:"weight,omitempty"`
}

type overlayRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// NodeOverlay is a compiled NodeOverlay: what Karpenter changes in the
// instance types it simulates with (KC pkg/controllers/nodeoverlay), for
// the offerings of every NodePool that match its requirements.
type NodeOverlay struct {
	Name string
	File string
	Line int
	// Requirements select the instance types and offerings, on the
	// types' labels, karpenter.sh/nodepool, the pool's template labels,
	// the zone and the capacity type (Gte/Lte written as Gt/Lt).
	Requirements []cluster.Requirement
	// Price is what the overlay does to a matching offering's price, nil
	// when it leaves prices alone.
	Price *PriceChange
	// Capacity are the extended resources it gives a matching instance
	// type (added, or replacing the type's own count), sorted by name.
	Capacity []ExtendedResource
	// Weight orders overlays: higher first, 0 when unset.
	Weight int32
}

func (o *NodeOverlay) String() string {
	return fmt.Sprintf("NodeOverlay/%s (%s:%d)", o.Name, o.File, o.Line)
}

// ExtendedResource is a count of an extended resource.
type ExtendedResource struct {
	Name  string
	Count int64
}

// PriceChange is a NodeOverlay's price or priceAdjustment (KC
// cloudprovider.AdjustedPrice).
type PriceChange struct {
	// Text is the field as written: "0.32", "+0.1", "-10%".
	Text string
	// Field is price or priceAdjustment.
	Field string
	kind  priceKind
	value float64
}

type priceKind uint8

const (
	priceSet     priceKind = iota // price: the value replaces the price
	priceAdd                      // priceAdjustment +/-N: added, floored at 0
	pricePercent                  // priceAdjustment +/-N%: scaled, floored at 0
)

// Apply returns price (USD/hour) as the overlay changes it.
func (p *PriceChange) Apply(price float64) float64 {
	var out float64
	switch p.kind {
	case priceSet:
		return p.value
	case priceAdd:
		out = price + p.value
	default:
		out = price * (1 + p.value/100)
	}
	return max(out, 0)
}

// ParsePriceChange reads a NodeOverlay's price (field "price") or
// priceAdjustment, checked against the CRD's pattern.
func ParsePriceChange(field, text string) (*PriceChange, error) {
	if field == "price" {
		if !pricePattern.MatchString(text) {
			return nil, fmt.Errorf("price %q does not match ^\\d+(\\.\\d+)?$", text)
		}
		v, _ := strconv.ParseFloat(text, 64)
		return &PriceChange{Text: text, Field: field, kind: priceSet, value: v}, nil
	}
	if !adjustmentPattern.MatchString(text) {
		return nil, fmt.Errorf("priceAdjustment %q is not a signed amount or percentage", text)
	}
	pc := PriceChange{Text: text, Field: field, kind: priceAdd}
	num := text
	if strings.HasSuffix(text, "%") {
		pc.kind, num = pricePercent, strings.TrimSuffix(text, "%")
	}
	pc.value, _ = strconv.ParseFloat(num, 64)
	return &pc, nil
}

// The CRD's patterns of price and priceAdjustment.
var (
	pricePattern      = regexp.MustCompile(`^\d+(\.\d+)?$`)
	adjustmentPattern = regexp.MustCompile(`^(([+-]{1}(\d*\.?\d+))|(\+{1}\d*\.?\d+%)|(^(-\d{1,2}(\.\d+)?%)$)|(-100%))$`)
)

// overlayOperators are the CRD's operators.
var overlayOperators = []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"}

// nodeOverlay compiles a NodeOverlay as the API server validates it (the
// CRD's schema and rules are errors) and as the controller's runtime
// validation does (KC NodeOverlay.RuntimeValidate: an overlay that fails
// it is never applied upstream, so it gets an ineffective-setting warning
// and is left out).
func (c *compiler) nodeOverlay(d *manifest.Document) {
	if d.APIVersion != APIVersionV1alpha1 {
		c.fail(d, "apiVersion", "write apiVersion: "+APIVersionV1alpha1, "NodeOverlay apiVersion %q is not served (Karpenter v1.15 serves %s)", d.APIVersion, APIVersionV1alpha1)
		return
	}
	o, ok := decode[nodeOverlayV1alpha1](c, d)
	if !ok || !c.named(d, o.Metadata.Name, "name the overlay") {
		return
	}
	if o.Spec == nil {
		c.fail(d, "spec", "give spec.requirements (requirements: [] matches every instance type) and a price, priceAdjustment or capacity", "missing spec")
		return
	}
	s := o.Spec
	ov := NodeOverlay{Name: o.Metadata.Name, File: d.File, Line: d.Line}
	errsBefore := len(c.errs)
	invalid := ""
	if s.Requirements == nil {
		c.fail(d, "spec", "add requirements: [] to match every instance type, or the requirements that select the types", "spec.requirements is required")
	} else {
		if n := len(*s.Requirements); n > maxOverlayConditions {
			c.fail(d, "spec.requirements", "split the overlay", "%d requirements: at most %d are allowed", n, maxOverlayConditions)
		}
		ov.Requirements, invalid = c.overlayRequirements(d, *s.Requirements)
	}
	switch {
	case s.Price != nil && s.PriceAdjustment != nil:
		c.fail(d, "spec.price", "keep one of price and priceAdjustment", "cannot set both 'price' and 'priceAdjustment'")
	case s.Price != nil:
		pc, err := ParsePriceChange("price", *s.Price)
		if err != nil {
			c.fail(d, "spec.price", `write a price in USD per hour such as "0.32" (no sign, no unit)`, "%v", err)
			break
		}
		ov.Price = pc
	case s.PriceAdjustment != nil:
		pc, err := ParsePriceChange("priceAdjustment", *s.PriceAdjustment)
		if err != nil {
			c.fail(d, "spec.priceAdjustment", `write "+0.05" or "-0.05" (USD per hour), "+10%", or "-10%" (down to "-100%")`, "%v", err)
			break
		}
		ov.Price = pc
	}
	for _, name := range slices.Sorted(maps.Keys(s.Capacity)) {
		at := "spec.capacity." + name
		switch corev1.ResourceName(name) {
		case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods:
			c.fail(d, at, "capacity only adds extended resources (nvidia.com/gpu, example.com/license); cpu, memory, ephemeral-storage and pods come from the instance type", "invalid resource restricted: %s", name)
			continue
		}
		q := s.Capacity[name]
		if q.Sign() < 0 {
			c.fail(d, at, "give a count of 0 or more", "%s is negative", q.String())
			continue
		}
		if q.MilliValue()%1000 != 0 {
			c.fail(d, at, "give a whole number", "extended resource %s must be a whole number, got %s", name, q.String())
			continue
		}
		ov.Capacity = append(ov.Capacity, ExtendedResource{Name: name, Count: q.Value()})
	}
	if s.Weight != nil {
		if w := *s.Weight; w < 1 || w > 10000 {
			c.fail(d, "spec.weight", "give 1 to 10000, or leave it out (weight 0)", "weight %d is out of range", w)
		} else {
			ov.Weight = w
		}
	}
	if len(c.errs) > errsBefore {
		return
	}
	if invalid != "" {
		c.warnc(d, CodeOverlayInvalid, "", "spec", "%s fails Karpenter's runtime validation (%s): the controller marks it ValidationSucceeded=False and never applies it", &ov, invalid)
		return
	}
	if ov.Price == nil && len(ov.Capacity) == 0 {
		c.warnc(d, CodeOverlayInert, "", "spec", "%s sets no price, priceAdjustment or capacity: it changes nothing", &ov)
	}
	if prev := slices.IndexFunc(c.overlays, func(p NodeOverlay) bool { return p.Name == ov.Name }); prev >= 0 {
		c.fail(d, "metadata.name", "rename one of them", "a second NodeOverlay named %q (the first is at %s:%d)", ov.Name, c.overlays[prev].File, c.overlays[prev].Line)
		return
	}
	c.overlays = append(c.overlays, ov)
}

// overlayRequirements compiles an overlay's requirements: the CRD's rules
// (operators, values, the karpenter.sh domain and kubernetes.io/hostname
// restricted) are errors.
//
// invalid says why the controller's runtime validation refuses them (KC
// NodeOverlaySpec.validateRequirements), "" when it does not.
func (c *compiler) overlayRequirements(d *manifest.Document, in []overlayRequirement) (out []cluster.Requirement, invalid string) {
	for i, r := range in {
		p := fmt.Sprintf("spec.requirements[%d]", i)
		key := r.Key
		if n, ok := NormalizedLabels[key]; ok {
			key = n
		}
		if key == LabelHostname {
			c.fail(d, p+".key", "select instance types by their labels; a hostname is not known before launch", "label %q is restricted", key)
			continue
		}
		if dom, _, _ := strings.Cut(key, "/"); key != LabelCapacityType && key != LabelNodePool && strings.HasSuffix(dom, GroupKarpenter) {
			c.fail(d, p+".key", "of karpenter.sh labels only karpenter.sh/capacity-type and karpenter.sh/nodepool are allowed", "label domain \"karpenter.sh\" is restricted: %s", key)
			continue
		}
		op, vals := r.Operator, r.Values
		if !slices.Contains(overlayOperators, op) {
			hint := "use " + strings.Join(overlayOperators, ", ")
			for _, good := range overlayOperators {
				if strings.EqualFold(good, op) {
					hint = "write operator: " + good
				}
			}
			c.fail(d, p+".operator", hint, "%q is not a requirement operator", op)
			continue
		}
		switch op {
		case "In", "NotIn":
			if len(vals) == 0 {
				c.fail(d, p+".values", "give at least one value", "requirements with operator '%s' must have a value defined", op)
				continue
			}
		case "Gt", "Lt", "Gte", "Lte":
			n, err := int64(0), error(nil)
			if len(vals) == 1 {
				n, err = strconv.ParseInt(vals[0], 10, 64)
			}
			if len(vals) != 1 || err != nil || n < 0 {
				c.fail(d, p+".values", "give exactly one non-negative integer", "requirements operator 'Gt', 'Lt', 'Gte' or 'Lte' must have a single positive integer value")
				continue
			}
			op, vals = strictBound(op, n)
		}
		if key == LabelCapacityType && (op == "In" || op == "NotIn") {
			for j, v := range vals {
				if v != "spot" && v != "on-demand" && v != "reserved" {
					c.fail(d, fmt.Sprintf("%s.values[%d]", p, j), "use spot, on-demand or reserved", "%q is not a capacity type", v)
				}
			}
		}
		cr, err := cluster.CompileRequirement(c.env.Syms, corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOperator(op), Values: vals}, cluster.MatchExpression)
		if err != nil {
			sub, msg, _ := strings.Cut(err.Error(), ": ")
			c.fail(d, p+"."+sub, "", "%s", msg)
			continue
		}
		if op == "In" {
			c.checkKnownValues(d, p, key, vals)
		}
		if restrictedDomain(key) == GroupAWS && invalid == "" {
			// KA adds its domain to the restricted ones: only its
			// well-known labels pass the runtime validation.
			invalid = fmt.Sprintf("%s.key: label %s is in the karpenter.k8s.aws domain but is not one of its well-known labels", p, key)
		}
		out = append(out, cr)
	}
	return out, invalid
}

// OrderOverlays sorts overlays as KC NodeOverlayList.OrderByWeight: weight
// descending, then name descending.
func OrderOverlays(ovs []NodeOverlay) {
	slices.SortStableFunc(ovs, func(a, b NodeOverlay) int {
		if a.Weight != b.Weight {
			return int(b.Weight) - int(a.Weight)
		}
		return strings.Compare(b.Name, a.Name)
	})
}
