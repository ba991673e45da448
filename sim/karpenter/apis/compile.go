package apis

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/clustersim/clustersim/sim/capacitybuffer"
	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/internal/duration"
	"github.com/clustersim/clustersim/sim/internal/suggest"
	"github.com/clustersim/clustersim/sim/manifest"
)

// Env is what compiling needs besides the documents.
type Env struct {
	Syms      *cluster.Symbols
	Resources *cluster.ResourceNames
	// Catalog, when set, checks instance types named in requirements.
	Catalog *catalog.Catalog
	// Zones, when set, checks zones named in requirements.
	Zones []string
	// AutoMode, when set, says EKS Auto Mode is on: its enabled built-in
	// NodePools and their default NodeClass are compiled with the
	// documents.
	AutoMode *AutoMode
}

// Result is the compiled Karpenter configuration of a scenario.
type Result struct {
	// NodePools sorted by name.
	NodePools []NodePool
	// NodeClasses sorted by kind and name.
	NodeClasses []NodeClass
	// NodeOverlays in the order Karpenter applies them (OrderOverlays),
	// those its runtime validation refuses left out.
	NodeOverlays []NodeOverlay
	// CapacityBuffers sorted by namespace and name.
	CapacityBuffers []capacitybuffer.Buffer
	// Skipped are the NodePools left out (Windows ones), sorted by name.
	Skipped  []SkippedPool
	Warnings []Warning
}

// Handles reports whether the document is a kind this package reads
// (NodePool, Provisioner, EC2NodeClass, AWSNodeTemplate), whatever its
// apiVersion: a wrong version gets a precise error from Compile.
func Handles(d *manifest.Document) bool {
	switch d.Kind {
	case KindNodePool, KindProvisioner, KindEC2NodeClass, KindAWSNodeTemplate, KindNodeOverlay, KindCapacityBuffer, KindNodeClass:
		return true
	}
	return false
}

// NodeTaintWarning returns a warning for a taint key on a node that
// Karpenter did not launch (a Node manifest, a static pool, a Cluster
// Autoscaler node group), or "" when there is nothing to say. The lead's
// loaders call it for those taints.
func NodeTaintWarning(key string) string {
	if key == "karpenter.sh/do-not-consolidate" {
		return "taint karpenter.sh/do-not-consolidate is not read by Karpenter: Karpenter never disrupts nodes it did not launch, so these nodes are safe from it without the taint; the taint only keeps off pods that do not tolerate it"
	}
	return ""
}

// Compile reads every Karpenter document given (others are ignored) and
// returns karpenter.sh/v1 NodePools with their node classes resolved.
// Legacy documents (karpenter.sh/v1alpha5 Provisioner, karpenter.sh/v1beta1
// NodePool, a Provisioner under any other version,
// karpenter.k8s.aws/v1alpha1 AWSNodeTemplate) are converted with a warning
// per change; karpenter.sh/v1 NodePools are validated as the API server
// would, obsolete fields being errors with the v1 equivalent as the hint.
// The error, if any, is a manifest.Errors.
func Compile(docs []*manifest.Document, env Env) (Result, error) {
	c := &compiler{env: env, classes: map[string]*NodeClass{}, refused: map[string]refusal{}, windows: map[string]windowsClass{}, poolDocs: map[string]*manifest.Document{}}
	docs = c.builtinDocs(docs)
	for _, d := range docs {
		switch d.Kind {
		case KindEC2NodeClass:
			c.nodeClass(d)
		case KindNodeClass:
			c.eksNodeClass(d)
		case KindAWSNodeTemplate:
			c.awsNodeTemplate(d)
		case KindNodeOverlay:
			c.nodeOverlay(d)
		case KindCapacityBuffer:
			c.capacityBuffer(d)
		}
	}
	for _, d := range docs {
		c.windowsReq, c.windowsPath = "", ""
		switch d.Kind {
		case KindNodePool:
			c.nodePool(d)
		case KindProvisioner:
			c.provisioner(d)
		}
	}
	c.resolve()
	var res Result
	for _, p := range c.pools {
		res.NodePools = append(res.NodePools, p.pool)
	}
	sort.Slice(res.NodePools, func(i, j int) bool { return res.NodePools[i].Name < res.NodePools[j].Name })
	for _, k := range slices.Sorted(maps.Keys(c.classes)) {
		res.NodeClasses = append(res.NodeClasses, *c.classes[k])
	}
	res.NodeOverlays = c.overlays
	OrderOverlays(res.NodeOverlays)
	res.CapacityBuffers = c.buffers
	res.Skipped = c.skipped
	sort.Slice(res.Skipped, func(i, j int) bool { return res.Skipped[i].Name < res.Skipped[j].Name })
	sort.Slice(res.CapacityBuffers, func(i, j int) bool {
		a, b := &res.CapacityBuffers[i], &res.CapacityBuffers[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	sort.SliceStable(c.warns, func(i, j int) bool {
		if c.warns[i].File != c.warns[j].File {
			return c.warns[i].File < c.warns[j].File
		}
		return c.warns[i].Line < c.warns[j].Line
	})
	res.Warnings = c.warns
	if len(c.errs) > 0 {
		return res, c.errs.Err()
	}
	return res, nil
}

type compiler struct {
	env     Env
	errs    manifest.Errors
	warns   []Warning
	classes map[string]*NodeClass // "Kind/name"
	// refused: node classes the API server would refuse ("Kind/name").
	refused map[string]refusal
	// windows: node classes skipped because they run Windows.
	windows map[string]windowsClass
	// windowsReq and windowsPath: the NodePool being compiled allows only
	// Windows nodes (why, at which requirement); finish skips it.
	windowsReq, windowsPath string
	skipped                 []SkippedPool
	pools                   []*draft
	poolDocs                map[string]*manifest.Document
	overlays                []NodeOverlay
	buffers                 []capacitybuffer.Buffer
	// autoMode: the NodePool being compiled names an EKS Auto Mode
	// NodeClass (its eks.amazonaws.com labels narrow instance types).
	autoMode bool
}

// draft is a compiled pool waiting for its node class.
type draft struct {
	pool    NodePool
	d       *manifest.Document
	refPath string
	// kubelet from a legacy NodePool/Provisioner, which v1 moved to the
	// node class; nil when none.
	kubelet *Kubelet
	// quietRef: a missing node class needs no warning of its own.
	quietRef bool
}

func (c *compiler) fail(d *manifest.Document, path, hint, format string, args ...any) {
	c.errs = append(c.errs, d.Errorf(path, hint, format, args...))
}

func (c *compiler) failErr(err error) { c.errs = c.errs.Add(err) }

// decode decodes d into a T; a decoding error is recorded and ok is false.
func decode[T any](c *compiler, d *manifest.Document) (obj T, ok bool) {
	if err := d.Decode(&obj); err != nil {
		c.failErr(err)
		return obj, false
	}
	return obj, true
}

// named reports whether an object has a name, recording an error at
// metadata.name (with hint) when not.
func (c *compiler) named(d *manifest.Document, name, hint string) bool {
	if name == "" {
		c.fail(d, "metadata.name", hint, "missing metadata.name")
		return false
	}
	return true
}

func (c *compiler) warn(d *manifest.Document, path, format string, args ...any) {
	c.warnc(d, "", "", path, format, args...)
}

// warnc is warn with a code and the fix the message words. Every warning
// inside a legacy NodePool document (a Provisioner, a v1beta1 NodePool) is
// CodeLegacy, except CodeNoSuchKind.
func (c *compiler) warnc(d *manifest.Document, code, fix, path, format string, args ...any) {
	if code != CodeNoSuchKind && legacyPoolDoc(d) {
		code = CodeLegacy
	}
	c.warns = append(c.warns, Warning{Code: code, File: d.File, Line: d.LineOf(path), Path: path, Msg: fmt.Sprintf(format, args...), Fix: fix})
}

// failc is fail with a code.
func (c *compiler) failc(d *manifest.Document, code, path, hint, format string, args ...any) {
	e := d.Errorf(path, hint, format, args...)
	e.Code = code
	c.errs = append(c.errs, e)
}

// legacyPoolDoc: d is a Provisioner (of any apiVersion) or a v1beta1
// NodePool.
func legacyPoolDoc(d *manifest.Document) bool {
	return d.Kind == KindProvisioner || d.Kind == KindNodePool && d.APIVersion == APIVersionV1beta1
}

// --- node classes ---

func (c *compiler) addClass(d *manifest.Document, nc *NodeClass) {
	key := nc.Kind + "/" + nc.Name
	if prev, ok := c.classes[key]; ok {
		c.fail(d, "metadata.name", "rename one of them", "a second %s named %q (the first is at %s:%d)", nc.Kind, nc.Name, prev.File, prev.Line)
		return
	}
	c.classes[key] = nc
}

func (c *compiler) nodeClass(d *manifest.Document) {
	switch d.APIVersion {
	case APIVersionAWSV1, APIVersionAWSV1beta1:
	default:
		c.fail(d, "apiVersion", "use apiVersion: "+APIVersionAWSV1, "EC2NodeClass is served as %s (and formerly %s), not %q", APIVersionAWSV1, APIVersionAWSV1beta1, d.APIVersion)
		return
	}
	obj, ok := decode[ec2NodeClassV1](c, d)
	if !ok || !c.named(d, obj.Metadata.Name, "name the EC2NodeClass; NodePools refer to it by name") {
		return
	}
	nc := &NodeClass{Name: obj.Metadata.Name, Kind: KindEC2NodeClass, File: d.File, Line: d.Line,
		Exported: ExportedHash{obj.Metadata.Annotations[NodeClassHashAnnotation], obj.Metadata.Annotations[NodeClassHashVersionAnnotation]}}
	s := &obj.Spec
	if d.APIVersion == APIVersionAWSV1beta1 {
		c.legacyNodeClass(d, s)
	}
	if d.APIVersion == APIVersionAWSV1beta1 && s.Kubelet != nil {
		c.warnc(d, CodeLegacy, "", "spec.kubelet", "kubelet is a karpenter.k8s.aws/v1 field (v1beta1 kept it in the NodePool's spec.template.spec.kubelet): read anyway")
	}
	nc.AMIFamily = c.amiFamily(d, s.AMIFamily, s.AMISelectorTerms)
	if IsWindowsFamily(nc.AMIFamily) {
		c.validateEC2NodeClass(d, s, d.APIVersion == APIVersionAWSV1)
		c.windows[KindEC2NodeClass+"/"+nc.Name] = windowsClass{File: d.File, Line: d.Line, Family: nc.AMIFamily}
		return
	}
	if s.Kubelet != nil {
		nc.Kubelet, nc.HasKubelet = c.kubelet(d, "spec.kubelet", c.familyKubeletConfig(d, "spec.kubelet", nc.AMIFamily, s.Kubelet)), true
	}
	nc.Kubelet = familyKubelet(nc.AMIFamily, nc.Kubelet)
	nc.RootVolumeGiB = c.rootVolume(d, "spec.blockDeviceMappings", s.BlockDeviceMappings, nc.AMIFamily)
	if p := s.InstanceStorePolicy; p != nil {
		if *p == "RAID0" {
			nc.InstanceStoreRAID0 = true
		} else {
			c.fail(d, "spec.instanceStorePolicy", "write instanceStorePolicy: RAID0, or leave it out", "instanceStorePolicy %q is not RAID0, the only policy", *p)
		}
	}
	if len(s.CapacityReservationSelectorTerms) > 0 {
		nc.ReservationTerms = c.reservationTerms(d, "spec.capacityReservationSelectorTerms", s.CapacityReservationSelectorTerms)
	}
	if n := len(c.errs); !c.validateEC2NodeClass(d, s, d.APIVersion == APIVersionAWSV1) {
		e := c.errs[n]
		c.refused[KindEC2NodeClass+"/"+nc.Name] = refusal{File: d.File, Line: d.Line, why: fieldMessage(e)}
	}
	nc.Hash = hashJSON(struct {
		K  *kubeletConfig
		B  []blockDeviceMapping
		U  *string
		T  map[string]string
		M  *metadataOptions
		R  string
		IP *string
		DM *bool
		AP *bool
		C  *string
		IS *string `json:",omitempty"`
	}{s.Kubelet, s.BlockDeviceMappings, s.UserData, s.Tags, s.MetadataOptions, s.Role, s.InstanceProfile, s.DetailedMonitoring, s.AssociatePublicIPAddress, s.Context, s.InstanceStorePolicy})
	c.addClass(d, nc)
}

func (c *compiler) awsNodeTemplate(d *manifest.Document) {
	if d.APIVersion != APIVersionAWSV1alpha {
		c.fail(d, "apiVersion", "write an EC2NodeClass (apiVersion: "+APIVersionAWSV1+")", "AWSNodeTemplate existed only in %s, not %q", APIVersionAWSV1alpha, d.APIVersion)
		return
	}
	obj, ok := decode[awsNodeTemplate](c, d)
	if !ok || !c.named(d, obj.Metadata.Name, "name the AWSNodeTemplate; Provisioners refer to it by providerRef.name") {
		return
	}
	c.warnc(d, CodeLegacy, "", "kind", "karpenter.k8s.aws/v1alpha1 AWSNodeTemplate was replaced by EC2NodeClass in karpenter.k8s.aws/v1beta1 and removed in v1: read as an EC2NodeClass (its subnet, security group and AMI selectors do not change where pods land and are ignored)")
	s := &obj.Spec
	if s.LaunchTemplateName != nil {
		c.warnc(d, CodeLegacy, "", "spec.launchTemplate", "custom launch templates were removed in v1beta1: ignored (nodes get the default kubelet settings unless the Provisioner's kubeletConfiguration sets them)")
	}
	nc := &NodeClass{Name: obj.Metadata.Name, Kind: KindAWSNodeTemplate, File: d.File, Line: d.Line}
	nc.AMIFamily = c.amiFamily(d, s.AMIFamily, nil)
	if IsWindowsFamily(nc.AMIFamily) {
		c.windows[KindAWSNodeTemplate+"/"+nc.Name] = windowsClass{File: d.File, Line: d.Line, Family: nc.AMIFamily}
		return
	}
	nc.RootVolumeGiB = c.rootVolume(d, "spec.blockDeviceMappings", s.BlockDeviceMappings, nc.AMIFamily)
	nc.Hash = hashJSON(struct {
		B []blockDeviceMapping
		U *string
		T map[string]string
		M *metadataOptions
	}{s.BlockDeviceMappings, s.UserData, s.Tags, s.MetadataOptions})
	c.addClass(d, nc)
}

// rootVolume finds the size in GiB of the EBS volume that holds the node's
// ephemeral storage (0: the 20 GiB default), as Karpenter's instance types
// do (pkg/providers/instancetype/types.go ephemeralStorage): the mapping
// marked rootVolume, else for a Custom family the last mapping, else the
// mapping of the family's ephemeral device (/dev/xvdb for Bottlerocket,
// /dev/xvda otherwise).
func (c *compiler) rootVolume(d *manifest.Document, path string, bdms []blockDeviceMapping, family string) int64 {
	idx := slices.IndexFunc(bdms, func(b blockDeviceMapping) bool { return b.RootVolume })
	if idx < 0 || bdms[idx].EBS == nil || bdms[idx].EBS.VolumeSize == nil {
		if dev := ephemeralDevice(family); dev == "" {
			idx = len(bdms) - 1
		} else {
			idx = slices.IndexFunc(bdms, func(b blockDeviceMapping) bool { return b.DeviceName != nil && *b.DeviceName == dev })
		}
	}
	if idx < 0 || bdms[idx].EBS == nil || bdms[idx].EBS.VolumeSize == nil {
		return 0
	}
	q := bdms[idx].EBS.VolumeSize
	gib := (q.Value() + catalog.GiB - 1) / catalog.GiB
	if gib <= 0 {
		c.fail(d, fmt.Sprintf("%s[%d].ebs.volumeSize", path, idx), "give a size such as 20Gi", "volume size %s is not positive", q.String())
		return 0
	}
	return gib
}

func (c *compiler) kubelet(d *manifest.Document, path string, k *kubeletConfig) Kubelet {
	var out Kubelet
	if k.MaxPods != nil {
		if *k.MaxPods < 0 {
			c.fail(d, path+".maxPods", "", "must not be negative")
		}
		out.MaxPods = max(*k.MaxPods, 0)
	}
	if k.PodsPerCore != nil {
		if *k.PodsPerCore < 0 {
			c.fail(d, path+".podsPerCore", "", "must not be negative")
		}
		out.PodsPerCore = max(*k.PodsPerCore, 0)
	}
	out.KubeReserved = c.reserved(d, path+".kubeReserved", k.KubeReserved)
	out.SystemReserved = c.reserved(d, path+".systemReserved", k.SystemReserved)
	for _, m := range []struct {
		field string
		vals  map[string]string
	}{{"evictionHard", k.EvictionHard}, {"evictionSoft", k.EvictionSoft}} {
		for _, key := range slices.Sorted(maps.Keys(m.vals)) {
			v := m.vals[key]
			p := fmt.Sprintf("%s.%s[%q]", path, m.field, key)
			switch key {
			case "memory.available":
				if pct, ok := parsePercent(v); ok {
					out.EvictionMemoryPercent = max(out.EvictionMemoryPercent, pct)
				} else if q, err := resource.ParseQuantity(v); err == nil {
					out.EvictionMemoryBytes = max(out.EvictionMemoryBytes, q.Value())
				} else {
					c.fail(d, p, "write a quantity such as 100Mi or a percentage such as 5%", "%q is not a quantity or percentage", v)
				}
			case "nodefs.available":
				if pct, ok := parsePercent(v); ok {
					out.EvictionNodefsPercent = max(out.EvictionNodefsPercent, pct)
				} else {
					c.fail(d, p, "write a percentage such as 10%", "%q is not a percentage", v)
				}
			case "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available":
				// Not resources the scheduler counts.
			default:
				c.fail(d, p, "use memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree or pid.available", "unknown eviction signal %q", key)
			}
		}
	}
	return out
}

func (c *compiler) reserved(d *manifest.Document, path string, m map[string]string) Reserved {
	var r Reserved
	for _, key := range slices.Sorted(maps.Keys(m)) {
		p := fmt.Sprintf("%s[%q]", path, key)
		q, err := resource.ParseQuantity(m[key])
		if err != nil {
			c.fail(d, p, "write a quantity such as 100m or 1Gi", "%q is not a quantity", m[key])
			continue
		}
		switch key {
		case "cpu":
			r.CPUMilli, r.SetCPU = q.MilliValue(), true
		case "memory":
			r.MemoryBytes, r.SetMemory = q.Value(), true
		case "ephemeral-storage":
			r.EphemeralBytes, r.SetEphemeral = q.Value(), true
		case "pid":
		default:
			c.fail(d, p, "use cpu, memory, ephemeral-storage or pid", "unknown reserved resource %q", key)
		}
	}
	return r
}

func parsePercent(s string) (float64, bool) {
	if !strings.HasSuffix(s, "%") {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || v < 0 || v > 100 {
		return 0, false
	}
	return v / 100, true
}

// --- shared pieces of NodePools ---

// apiGeneration is the API generation of the document being compiled:
// karpenter.sh/v1, or a legacy one (v1beta1 NodePool, v1alpha5 Provisioner)
// that is converted, with a warning where v1 has an error.
type apiGeneration uint8

const (
	v1API apiGeneration = iota
	legacyAPI
)

// neverRule says whether a duration field accepts "Never".
type neverRule bool

const (
	neverAllowed  neverRule = true
	neverRejected neverRule = false
)

// durationOrNever parses a NillableDuration: whole hours, minutes and
// seconds ("720h", "1h30m", "90s") or "Never". ok is false after an error.
func (c *compiler) durationOrNever(d *manifest.Document, path, text string, allowNever neverRule) (v time.Duration, never bool, ok bool) {
	if text == "Never" && allowNever == neverAllowed {
		return 0, true, true
	}
	if !karpenterDuration(text) {
		hint := "write whole hours, minutes or seconds such as 720h, 30m or 90s"
		if allowNever == neverAllowed {
			hint += ", or Never"
		}
		c.fail(d, path, hint, "%q is not a duration Karpenter accepts", text)
		return 0, false, false
	}
	v, err := time.ParseDuration(text)
	if err != nil {
		// Digits and units only: too long for a time.Duration. Karpenter
		// would refuse it; far beyond any run, it saturates here.
		v = duration.Saturated
	}
	return duration.Cap(v), false, true
}

// karpenterDuration matches ^([0-9]+(s|m|h))+$.
func karpenterDuration(s string) bool {
	if s == "" {
		return false
	}
	digits := 0
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch >= '0' && ch <= '9':
			digits++
		case ch == 's' || ch == 'm' || ch == 'h':
			if digits == 0 {
				return false
			}
			digits = 0
		default:
			return false
		}
	}
	return digits == 0
}

var effectSpellings = map[string]string{"NO_SCHEDULE": "NoSchedule", "PREFER_NO_SCHEDULE": "PreferNoSchedule", "NO_EXECUTE": "NoExecute"}

// taints compiles taints. A legacy document converts the EKS effect spellings with a
// warning; a v1 document gets an error for them.
func (c *compiler) taints(d *manifest.Document, path string, in []taint, gen apiGeneration) []cluster.Taint {
	legacy := gen == legacyAPI
	var out []cluster.Taint
	for i, t := range in {
		p := fmt.Sprintf("%s[%d]", path, i)
		effect := t.Effect
		if right, ok := effectSpellings[effect]; ok {
			if legacy {
				c.warnc(d, CodeEffectSpelling, "write effect: "+right, p+".effect", "%q is the EKS API and eksctl spelling, not a Kubernetes taint effect: read as %s (write effect: %s)", effect, right, right)
				effect = right
			} else {
				c.fail(d, p+".effect", "write effect: "+right, "%q is the EKS API and eksctl spelling, not a Kubernetes taint effect", effect)
				continue
			}
		}
		if _, ok := cluster.ParseEffect(effect); !ok {
			c.fail(d, p+".effect", "use NoSchedule, PreferNoSchedule or NoExecute", "effect %q is not one of NoSchedule, PreferNoSchedule, NoExecute", t.Effect)
			continue
		}
		if errs := validation.IsQualifiedName(t.Key); len(errs) > 0 {
			c.fail(d, p+".key", "", "%q is not a valid taint key: %s", t.Key, strings.Join(errs, "; "))
			continue
		}
		if t.Key == "karpenter.sh/do-not-consolidate" {
			c.warnc(d, CodeDoNotConsolidateTaint, "", p+".key", "taint karpenter.sh/do-not-consolidate means nothing to Karpenter: it is an ordinary taint that pods must tolerate to run on these nodes; to keep Karpenter from disrupting nodes use the karpenter.sh/do-not-disrupt: \"true\" annotation in spec.template.metadata.annotations (nodes Karpenter did not launch are never disrupted by it)")
		}
		ct, err := cluster.CompileTaint(c.env.Syms, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(effect)})
		if err != nil {
			c.fail(d, p, "", "%v", err)
			continue
		}
		out = append(out, ct)
	}
	return out
}

// restrictedDomain returns the reserved domain a label key falls in
// (karpenter.sh, karpenter.k8s.aws) unless it is a well-known label.
func restrictedDomain(key string) string {
	for _, w := range WellKnownLabels {
		if w == key {
			return ""
		}
	}
	domain, _, ok := strings.Cut(key, "/")
	if !ok {
		return ""
	}
	for _, r := range []string{GroupKarpenter, GroupAWS} {
		if domain == r || strings.HasSuffix(domain, "."+r) {
			return r
		}
	}
	return ""
}

// isWellKnown reports whether key is a well-known label (WellKnownLabels,
// karpenter.sh/nodepool and kubernetes.io/hostname included).
func isWellKnown(key string) bool {
	return key == LabelNodePool || key == LabelHostname || slices.Contains(WellKnownLabels, key)
}

// closestWellKnown returns the well-known label whose name (after the
// "/") is closest to key's, within a few edits; "" if none.
func closestWellKnown(key string) string {
	_, name, ok := strings.Cut(key, "/")
	if !ok {
		name = key
	}
	best, bestDist := "", max(2, len(name)/4)+1
	for _, w := range WellKnownLabels {
		_, wn, _ := strings.Cut(w, "/")
		if d := suggest.Distance(strings.ToLower(name), wn); d < bestDist {
			best, bestDist = w, d
		}
	}
	return best
}

// labels compiles template labels. Reserved domains are an error in v1 and
// dropped with a warning in legacy documents.
func (c *compiler) labels(d *manifest.Document, path string, in map[string]string, gen apiGeneration) map[string]string {
	legacy := gen == legacyAPI
	out := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(in)) {
		v := in[k]
		p := fmt.Sprintf("%s[%q]", path, k)
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			c.fail(d, p, "", "%q is not a valid label key: %s", k, strings.Join(errs, "; "))
			continue
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			c.fail(d, p, "", "%q is not a valid label value: %s", v, strings.Join(errs, "; "))
			continue
		}
		if k == LabelNodePool || k == LabelHostname {
			if legacy {
				c.warn(d, p, "label %s is set by Karpenter and the kubelet on every node: dropped", k)
			} else {
				c.fail(d, p, "remove it: Karpenter sets it on every node", "label %s is restricted", k)
			}
			continue
		}
		if dom := restrictedDomain(k); dom != "" {
			if legacy {
				if k == "karpenter.sh/provisioner-name" {
					c.warn(d, p, "label karpenter.sh/provisioner-name is in the karpenter.sh domain, which Karpenter reserves: it labels every node karpenter.sh/nodepool=<name> itself (the v1 successor of karpenter.sh/provisioner-name): dropped")
				} else {
					c.warn(d, p, "label %s is in the %s domain, which Karpenter reserves for its own labels: dropped", k, dom)
				}
			} else {
				c.fail(d, p, "remove it or use a domain of your own (karpenter.sh/nodepool is set on every node automatically)", "label %s is in the %s domain, which Karpenter reserves", k, dom)
			}
			continue
		}
		out[k] = v
	}
	return out
}

func (c *compiler) annotations(d *manifest.Document, path string, in map[string]string) (map[string]string, bool) {
	out := map[string]string{}
	dnd := false
	for _, k := range slices.Sorted(maps.Keys(in)) {
		v := in[k]
		p := fmt.Sprintf("%s[%q]", path, k)
		switch k {
		case "karpenter.sh/do-not-consolidate", "karpenter.sh/do-not-evict":
			c.warnc(d, CodeRemovedAnnotation, "", p, "annotation %s was removed in Karpenter v1 and is ignored: use karpenter.sh/do-not-disrupt: \"true\"", k)
		case AnnotationDoNotDisrupt:
			dnd = v == "true"
			if !dnd {
				// A duration is for pods (v1.12+): on a node only "true"
				// counts (KC StateNode.ValidateNodeDisruptable).
				c.warn(d, p, "karpenter.sh/do-not-disrupt: %q on a node means nothing: Karpenter reads only \"true\" there (a duration such as \"10m\" applies to pods): these nodes are not protected", v)
			}
		}
		out[k] = v
	}
	return out, dnd
}

// requirements compiles requirements. Errors are errors in every version;
// a legacy document only changes reserved keys from an error to a dropped warning.
//
// A requirement on a key that is no well-known label (so no instance type
// has it: every catalogue label is well-known) and that the template's
// labels do not set is accepted, as upstream does for custom labels, with
// a warning: it does not narrow instance types, Karpenter only copies it to
// the node, and a mistyped key silently matches everything.
func (c *compiler) requirements(d *manifest.Document, path string, in []requirement, gen apiGeneration, labels map[string]string) []Requirement {
	legacy := gen == legacyAPI
	var out []Requirement
	for i, r := range in {
		p := fmt.Sprintf("%s[%d]", path, i)
		key := r.Key
		if n, ok := NormalizedLabels[key]; ok {
			key = n
		}
		if c.autoMode {
			if key = c.autoModeRequirementKey(d, p+".key", key); key == "" {
				continue
			}
		} else if c.nonAutoModeKey(d, p+".key", key) {
			labels = withKey(labels, key)
		}
		if key == LabelHostname || key == LabelNodePool {
			c.fail(d, p+".key", "remove it: Karpenter picks hostnames and sets karpenter.sh/nodepool itself", "requirement key %s is restricted", key)
			continue
		}
		if dom := restrictedDomain(key); dom != "" {
			if legacy {
				c.warn(d, p+".key", "requirement on %s, in the %s domain that Karpenter reserves: dropped", key, dom)
			} else {
				hint := "use a well-known label or a domain of your own"
				if sug := closestWellKnown(key); sug != "" {
					hint = "did you mean " + sug + "? " + hint
				}
				c.fail(d, p+".key", hint, "requirement key %s is in the %s domain, which Karpenter reserves", key, dom)
			}
			continue
		}
		if _, own := labels[key]; !own && !isWellKnown(key) {
			mean := "a well-known label such as karpenter.k8s.aws/instance-family"
			if sug := closestWellKnown(key); sug != "" {
				mean = "the well-known " + sug
			}
			fix := fmt.Sprintf("write %s if you meant an instance property, or set %s in the template's labels if it is a label of your own", mean, key)
			c.warnc(d, CodeUnknownLabel, fix, p+".key", "requirement key %s is not a label of any instance type nor a well-known label: it does not narrow the instance types, Karpenter only puts it on the node (%s)",
				key, fix)
		}
		op := r.Operator
		vals := r.Values
		if why := windowsOnlyRequirement(key, op, vals); why != "" {
			if c.windowsReq == "" {
				c.windowsReq, c.windowsPath = why, p
			}
			continue
		}
		switch op {
		case "Gte", "Lte", "Gt", "Lt":
			if len(vals) != 1 {
				c.fail(d, p+".values", "give exactly one non-negative integer", "operator %s needs exactly one value, got %d", op, len(vals))
				continue
			}
			n, err := strconv.ParseInt(vals[0], 10, 64)
			if err != nil || n < 0 {
				c.fail(d, p+".values[0]", "give a non-negative integer", "operator %s needs a non-negative integer, got %q", op, vals[0])
				continue
			}
			op, vals = strictBound(op, n)
		case "In", "NotIn", "Exists", "DoesNotExist":
		default:
			hint := "use In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte or Lte"
			for _, good := range []string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"} {
				if strings.EqualFold(good, op) {
					hint = "write operator: " + good
				}
			}
			c.fail(d, p+".operator", hint, "%q is not a requirement operator", r.Operator)
			continue
		}
		cr, err := cluster.CompileRequirement(c.env.Syms, corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOperator(op), Values: vals}, cluster.MatchExpression)
		if err != nil {
			sub, msg, _ := strings.Cut(err.Error(), ": ")
			c.fail(d, p+"."+sub, "", "%s", msg)
			continue
		}
		req := Requirement{Requirement: cr}
		if r.MinValues != nil {
			mv := *r.MinValues
			switch {
			case mv < 1 || mv > 50:
				c.fail(d, p+".minValues", "give 1 to 50", "minValues %d is out of range", mv)
				continue
			case op == "In" && len(vals) < mv:
				c.fail(d, p+".minValues", "list at least minValues values", "minValues %d is more than the %d values given", mv, len(vals))
				continue
			}
			req.MinValues = int32(mv)
		}
		if key == LabelCapacityType && (op == "In" || op == "NotIn") {
			for j, v := range vals {
				switch v {
				case "spot", "on-demand", "reserved":
				default:
					hint := "use spot, on-demand or reserved"
					if v == "SPOT" || v == "ON_DEMAND" {
						hint = "the EKS spellings SPOT and ON_DEMAND are not Karpenter values: write spot or on-demand"
					}
					c.fail(d, fmt.Sprintf("%s.values[%d]", p, j), hint, "%q is not a capacity type", v)
				}
			}
		}
		if op == "In" {
			c.checkKnownValues(d, p, key, vals)
		}
		out = append(out, req)
	}
	return out
}

// withKey is labels with key set, so that a requirement on it gets no
// second warning.
func withKey(labels map[string]string, key string) map[string]string {
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	out[key] = ""
	return out
}

// strictBound writes a requirement Op n with Op one of Gt, Lt, Gte and
// Lte as Gt or Lt (integer values: Gte n is Gt n-1).
func strictBound(op string, n int64) (string, []string) {
	switch op {
	case "Gte":
		return "Gt", []string{strconv.FormatInt(n-1, 10)}
	case "Lte":
		return "Lt", []string{strconv.FormatInt(n+1, 10)}
	}
	return op, []string{strconv.FormatInt(n, 10)}
}

// checkKnownValues warns about instance types and zones that cannot exist.
func (c *compiler) checkKnownValues(d *manifest.Document, path, key string, vals []string) {
	switch key {
	case LabelInstanceType:
		if c.env.Catalog == nil {
			return
		}
		for j, v := range vals {
			if _, ok := c.env.Catalog.Lookup(v); !ok {
				c.warn(d, fmt.Sprintf("%s.values[%d]", path, j), "instance type %q is not in the EC2 catalogue: no node can have it", v)
			}
		}
	case LabelZone:
		if len(c.env.Zones) == 0 {
			return
		}
		for j, v := range vals {
			found := false
			for _, z := range c.env.Zones {
				found = found || z == v
			}
			if found {
				continue
			}
			if r, here := catalog.RegionOf(v), catalog.RegionOf(c.env.Zones[0]); r != "" && here != "" && r != here {
				c.warn(d, fmt.Sprintf("%s.values[%d]", path, j), "zone %q is in %s, not in the scenario's region %s: no node can be there; to simulate %s set the Scenario's spec.region: %s (sim lint -f: --region %s)", v, r, here, r, r, r)
				continue
			}
			c.warn(d, fmt.Sprintf("%s.values[%d]", path, j), "zone %q is not one of the scenario's zones (%s): no node can be there", v, strings.Join(c.env.Zones, ", "))
		}
	}
}

func (c *compiler) limits(d *manifest.Document, path string, in map[string]resource.Quantity) Limits {
	out := Limits{Nodes: -1}
	for _, k := range slices.Sorted(maps.Keys(in)) {
		q := in[k]
		p := fmt.Sprintf("%s[%q]", path, k)
		if q.Sign() < 0 {
			c.fail(d, p, "", "limit %s must not be negative", q.String())
			continue
		}
		switch k {
		case "nodes":
			out.Nodes = saturatedLimit(q, 0)
			continue
		case "cpu":
			out.Max[cluster.CPU], out.Has[cluster.CPU] = saturatedLimit(q, -3), true
			continue
		}
		if !strings.Contains(k, "/") && k != "memory" && k != "ephemeral-storage" && k != "pods" && !strings.HasPrefix(k, "hugepages-") {
			c.fail(d, p, "use cpu, memory, ephemeral-storage, pods, nodes or a resource with a domain such as nvidia.com/gpu", "unknown resource %q", k)
			continue
		}
		slot, err := c.env.Resources.Index(corev1.ResourceName(k))
		if err != nil {
			c.fail(d, p, "", "%v", err)
			continue
		}
		out.Max[slot], out.Has[slot] = saturatedLimit(q, 0), true
	}
	return out
}

// maxLimit is where a limit saturates: no cluster reaches it (2^62 cores'
// millicores, bytes or nodes), and usage plus a node never overflows it.
const maxLimit = int64(1) << 62

// saturatedLimit is q in units of 10^scale (-3: millicores), saturated at
// maxLimit: limits.cpu: "1e16" overflowed int64 millicores and acted as a
// limit of nothing (every pod stranded).
func saturatedLimit(q resource.Quantity, scale resource.Scale) int64 {
	if f := q.AsApproximateFloat64() * math.Pow10(-int(scale)); f >= float64(maxLimit) || math.IsInf(f, 0) || math.IsNaN(f) {
		return maxLimit
	}
	return q.ScaledValue(scale)
}

// budgets compiles v1 budgets (v1beta1 ones have no reasons).
func (c *compiler) budgets(d *manifest.Document, path string, in []budgetV1) []Budget {
	if in == nil {
		n, _ := parseBudgetNodes(DefaultBudgetNodes)
		return []Budget{{Nodes: n, Text: budgetText(budgetV1{Nodes: DefaultBudgetNodes})}}
	}
	var out []Budget
	for i, b := range in {
		p := fmt.Sprintf("%s[%d]", path, i)
		nb := Budget{Text: budgetText(b)}
		n, ok := parseBudgetNodes(b.Nodes)
		if !ok {
			c.fail(d, p+".nodes", `write a count such as "1" or a percentage such as "10%"`, "%q is not a node count or percentage", b.Nodes)
			continue
		}
		nb.Nodes = n
		for j, r := range b.Reasons {
			switch r {
			case "Empty":
				nb.Reasons = append(nb.Reasons, ReasonEmpty)
			case "Underutilized":
				nb.Reasons = append(nb.Reasons, ReasonUnderutilized)
			case "Drifted":
				nb.Reasons = append(nb.Reasons, ReasonDrifted)
			case "Unhealthy":
				// v1.15: node repair's budgets (with the NodeRepair gate
				// off it paces nothing: package karpenter says so).
				nb.Reasons = append(nb.Reasons, ReasonUnhealthy)
			default:
				c.fail(d, fmt.Sprintf("%s.reasons[%d]", p, j), "use Empty, Underutilized, Drifted or Unhealthy", "%q is not a disruption reason", r)
			}
		}
		if (b.Schedule == nil) != (b.Duration == nil) {
			c.fail(d, p, "give both schedule and duration, or neither", "'schedule' must be set with 'duration'")
			continue
		}
		if b.Schedule != nil {
			s, err := ParseSchedule(*b.Schedule)
			if err != nil {
				c.fail(d, p+".schedule", `write a cron expression such as "0 9 * * mon-fri" (UTC)`, "%v", err)
				continue
			}
			nb.Schedule = s
			dur, err := time.ParseDuration(*b.Duration)
			if err != nil || !budgetDuration(*b.Duration) || dur <= 0 {
				c.fail(d, p+".duration", "write whole hours and minutes such as 8h or 1h30m", "%q is not a budget duration", *b.Duration)
				continue
			}
			nb.Duration = duration.Cap(dur)
		}
		out = append(out, nb)
	}
	return out
}

func budgetText(b budgetV1) string {
	parts := []string{"nodes: " + b.Nodes}
	if len(b.Reasons) > 0 {
		parts = append(parts, "reasons: ["+strings.Join(b.Reasons, ", ")+"]")
	}
	if b.Schedule != nil {
		parts = append(parts, "schedule: "+*b.Schedule)
	}
	if b.Duration != nil {
		parts = append(parts, "duration: "+*b.Duration)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// budgetDuration matches Karpenter's budget duration pattern: hours and
// minutes only (a trailing 0s is allowed).
func budgetDuration(s string) bool {
	s = strings.TrimSuffix(s, "0s")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch >= '0' && ch <= '9') && ch != 'h' && ch != 'm' {
			return false
		}
	}
	return karpenterDuration(s)
}

func parseBudgetNodes(s string) (cluster.IntOrPercent, bool) {
	if v, ok := strings.CutSuffix(s, "%"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 100 || len(v) > 3 {
			return cluster.IntOrPercent{}, false
		}
		return cluster.IntOrPercent{Value: int32(n), Percent: true}, true
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return cluster.IntOrPercent{}, false
	}
	return cluster.IntOrPercent{Value: int32(n)}, true
}

func (c *compiler) weight(d *manifest.Document, path string, w *int32) int32 {
	if w == nil {
		return 0
	}
	if *w < 1 || *w > MaxWeight {
		c.fail(d, path, "give a weight from 1 to 100 (higher is tried first)", "weight %d is out of range", *w)
		return 0
	}
	return *w
}

// finish fills the derived fields and registers the draft.
func (c *compiler) finish(dr *draft, labels, annotations map[string]string) {
	p := &dr.pool
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		c.env.Syms.Intern(k)
		c.env.Syms.Intern(labels[k])
	}
	p.Labels = cluster.CompileLabels(c.env.Syms, labels)
	p.Annotations = annotations
	h := fnv.New64a()
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		fmt.Fprintf(h, "l:%s=%s;", k, labels[k])
	}
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		fmt.Fprintf(h, "a:%s=%s;", k, annotations[k])
	}
	taintKeys := func(tag string, ts []cluster.Taint) {
		var s []string
		for _, t := range ts {
			s = append(s, fmt.Sprintf("%s=%s:%s", c.env.Syms.Name(t.Key), c.env.Syms.Name(t.Value), t.Effect))
		}
		sort.Strings(s)
		fmt.Fprintf(h, "%s:%s;", tag, strings.Join(s, ","))
	}
	taintKeys("t", p.Taints)
	taintKeys("st", p.StartupTaints)
	fmt.Fprintf(h, "e:%d;g:%d;r:%s/%s/%s", p.ExpireAfter, p.TerminationGracePeriod, p.NodeClassRef.Group, p.NodeClassRef.Kind, p.NodeClassRef.Name)
	p.TemplateHash = h.Sum64()
	if why, path := c.windowsReq, c.windowsPath; why != "" {
		c.windowsReq, c.windowsPath = "", ""
		c.skipWindows(dr, path, why)
		return
	}
	if prev, ok := c.poolDocs[p.Name]; ok {
		c.fail(dr.d, "metadata.name", "rename one of them", "a second NodePool named %q (the first is at %s:%d; a Provisioner becomes a NodePool of the same name)", p.Name, prev.File, prev.Line)
		return
	}
	c.poolDocs[p.Name] = dr.d
	c.pools = append(c.pools, dr)
}

// resolve attaches node classes to pools; a pool whose class runs
// Windows is skipped.
func (c *compiler) resolve() {
	kept := c.pools[:0]
	for _, dr := range c.pools {
		key := dr.pool.NodeClassRef.Kind + "/" + dr.pool.NodeClassRef.Name
		if w, ok := c.windows[key]; ok {
			c.skipWindows(dr, dr.refPath, fmt.Sprintf("its %s %q (%s:%d) runs %s", dr.pool.NodeClassRef.Kind, dr.pool.NodeClassRef.Name, w.File, w.Line, w.Family))
			continue
		}
		kept = append(kept, dr)
	}
	c.pools = kept
	for _, dr := range c.pools {
		p := &dr.pool
		key := p.NodeClassRef.Kind + "/" + p.NodeClassRef.Name
		nc, ok := c.classes[key]
		if !ok && p.NodeClassRef.Kind == KindAWSNodeTemplate {
			nc, ok = c.classes[KindEC2NodeClass+"/"+p.NodeClassRef.Name]
		}
		c.refusedClassRef(dr)
		switch {
		case ok:
			p.NodeClass = *nc
		case p.NodeClassRef.Kind == KindNodeClass:
			p.NodeClass = autoModeDefaults(p.NodeClassRef.Name)
			why := "EKS creates the default NodeClass only while a built-in NodePool is enabled (spec.karpenter.autoMode.nodePools, or eksctl's autoModeConfig.nodePools)"
			if p.NodeClassRef.Name != BuiltinNodeClass {
				why = "add it"
			}
			c.warn(dr.d, dr.refPath, "no eks.amazonaws.com NodeClass named %q among the manifests: nodes get Auto Mode's default settings (in a cluster the NodePool would launch nothing until it exists: %s)", p.NodeClassRef.Name, why)
		default:
			p.NodeClass = NodeClass{Name: p.NodeClassRef.Name, Kind: p.NodeClassRef.Kind}
			if !dr.quietRef {
				c.warn(dr.d, dr.refPath, "no %s named %q among the manifests: nodes get the default settings (in a cluster the NodePool would stay NotReady and launch nothing until it exists)", p.NodeClassRef.Kind, p.NodeClassRef.Name)
			}
		}
		if dr.kubelet != nil {
			p.NodeClass.Kubelet, p.NodeClass.HasKubelet = *dr.kubelet, true
			p.NodeClass.Hash ^= hashJSON(*dr.kubelet)
		}
		p.NodeClass.Kubelet = familyKubelet(p.NodeClass.AMIFamily, p.NodeClass.Kubelet)
	}
}

func hashJSON(v any) uint64 {
	b, _ := json.Marshal(v)
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// secondsText renders a count of seconds as a Karpenter duration.
func secondsText(s int64) string {
	if s%3600 == 0 && s > 0 {
		return fmt.Sprintf("%dh", s/3600)
	}
	if s%60 == 0 && s > 0 {
		return fmt.Sprintf("%dm", s/60)
	}
	return fmt.Sprintf("%ds", s)
}

func secondsDuration(s int64) time.Duration {
	if s > math.MaxInt64/int64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(s) * time.Second
}
