package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Redaction (Options.Redact) replaces every identifier of the cluster
// with a stable hash, the same hash wherever the value appears, so that
// what matched still matches and the redacted scenario runs as the plain
// one does:
//
//   - node names, in the node, its hostname label, pods' nodeName,
//     nodeSelector and node affinity (matchExpressions on the hostname,
//     matchFields on metadata.name), volumes' node affinity and the
//     scenario's startOn;
//   - the values of node labels, in the nodes, nodeSelector and node
//     affinity, NodePool requirements and template labels, eksctl node
//     group labels and their node-template tags, but the values the
//     catalogue and the autoscalers define (instance types, zones,
//     capacity types, architectures, NodePool and node group names) and
//     decimal numbers (Gt and Lt compare them), but 12-digit ones, which
//     may be account IDs;
//   - namespace and workload names, the values of pod and namespace
//     labels with their selectors (kubernetes.io/metadata.name follows
//     its namespace);
//   - the cluster name (eksctl metadata.name, the alpha.eksctl.io/cluster-name
//     label, Auto Scaling group tags and the Cluster Autoscaler's
//     auto-discovery and --nodes flags);
//   - AWS account IDs (seen in ARNs and ECR registries anywhere in the
//     export) and resource IDs (subnet-, sg-, vol-, ami-, ...) wherever
//     they are left in the written scenario, with hashes of their form.

// clusterHashPrefix starts a redacted cluster name (a valid eksctl name).
const clusterHashPrefix = "cl-"

// publicLabels are node label keys whose values the catalogue, AWS or
// the autoscalers define: kept as they are by --redact, as the models
// read them (instance types, zones) or the scenario names them (NodePool
// and node group names are kept, see docs/commands.md).
var publicLabels = map[string]bool{
	corev1.LabelArchStable: true, corev1.LabelOSStable: true, "beta.kubernetes.io/arch": true, "beta.kubernetes.io/os": true,
	corev1.LabelInstanceTypeStable: true, corev1.LabelInstanceType: true,
	corev1.LabelTopologyZone: true, corev1.LabelTopologyRegion: true,
	corev1.LabelFailureDomainBetaZone: true, corev1.LabelFailureDomainBetaRegion: true,
	corev1.LabelWindowsBuild: true, "topology.k8s.aws/zone-id": true, "topology.ebs.csi.aws.com/zone": true,
	"karpenter.sh/capacity-type": true, "eks.amazonaws.com/capacityType": true,
	"karpenter.sh/nodepool": true, "karpenter.sh/provisioner-name": true, "karpenter.k8s.aws/ec2nodeclass": true,
	"karpenter.sh/registered": true, "karpenter.sh/initialized": true,
	"karpenter.k8s.aws/capacity-reservation-type": true, "karpenter.k8s.aws/capacity-reservation-interruptible": true,
	"eks.amazonaws.com/nodegroup": true, "alpha.eksctl.io/nodegroup-name": true, "eks.amazonaws.com/compute-type": true,
}

// publicLabelPrefixes: Karpenter's instance attribute labels (category,
// family, generation, size, cpu, memory, ...) and node roles.
var publicLabelPrefixes = []string{"karpenter.k8s.aws/instance-", "node-role.kubernetes.io/"}

// nodeNameLabels hold a node's name or instance ID; clusterLabels the
// cluster's name.
var (
	nodeNameLabels = map[string]bool{corev1.LabelHostname: true, "alpha.eksctl.io/instance-id": true}
	clusterLabels  = map[string]bool{"alpha.eksctl.io/cluster-name": true}
)

func publicLabel(key string) bool {
	if publicLabels[key] {
		return true
	}
	for _, p := range publicLabelPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// nodeLabelValue is the value of node label key as written: with
// --redact, hashed unless public (see above).
func (im *Importer) nodeLabelValue(key, v string) string {
	if !im.opts.Redact || v == "" {
		return v
	}
	switch {
	case key == labelReservationID:
		return im.redactID("cr-", v) // still an id the scenario's reservations name
	case nodeNameLabels[key]:
		return im.nodeName(v)
	case clusterLabels[key]:
		return im.clusterName(v)
	case publicLabel(key):
		return v
	case isDecimal(v) && len(strings.TrimPrefix(v, "-")) == 12:
		return im.accountID(v)
	case isDecimal(v):
		return v
	}
	return hash("v-", v)
}

func isDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// clusterName is the cluster's name as written; with --redact, a hash,
// and the name is remembered so that its other appearances (tags, flags)
// are replaced by the same hash (redactText).
func (im *Importer) clusterName(n string) string {
	if !im.opts.Redact || n == "" {
		return n
	}
	if !slices.Contains(im.clusterNames, n) {
		im.clusterNames = append(im.clusterNames, n)
		// Longest first, so that a name containing another is replaced whole.
		slices.SortFunc(im.clusterNames, func(a, b string) int { return len(b) - len(a) })
	}
	return hash(clusterHashPrefix, n)
}

// accountID is a 12-digit hash of an AWS account ID (an ARN keeps its
// form).
func (im *Importer) accountID(a string) string {
	sum := sha256.Sum256([]byte("clustersim/redact/account\x00" + a))
	return fmt.Sprintf("%012d", binary.BigEndian.Uint64(sum[:8])%1_000_000_000_000)
}

// accountRE finds account IDs in ARNs and ECR registry hosts.
var accountRE = regexp.MustCompile(`arn:aws[a-z-]*:[a-z0-9-]*:[a-z0-9-]*:([0-9]{12}):|(?:^|[^0-9])([0-9]{12})\.dkr\.ecr\.`)

// seeIdentifiers remembers the account IDs in an object's text (with
// --redact), to replace them wherever they are left (scrub).
func (im *Importer) seeIdentifiers(text []byte) {
	if !bytes.Contains(text, []byte("arn:aws")) && !bytes.Contains(text, []byte(".dkr.ecr.")) {
		return
	}
	for _, m := range accountRE.FindAllSubmatch(text, -1) {
		for _, g := range m[1:] {
			if len(g) == 12 {
				im.accounts[string(g)] = true
			}
		}
	}
}

// seeClusterIn remembers the cluster names an auto-discovery tag or an
// Auto Scaling group tag names (k8s.io/cluster-autoscaler/NAME,
// kubernetes.io/cluster/NAME).
func (im *Importer) seeClusterIn(tagKey string) {
	for _, p := range []string{"k8s.io/cluster-autoscaler/", "kubernetes.io/cluster/"} {
		if n, ok := strings.CutPrefix(tagKey, p); ok && n != "" && n != "enabled" && !strings.Contains(n, "/") {
			im.clusterName(n)
		}
	}
}

// redactText replaces, with --redact, the cluster names and account IDs
// known in s, where they stand as words (the cluster name prod in
// eksctl-prod-nodegroup-ng or k8s.io/cluster-autoscaler/prod, not in
// production).
func (im *Importer) redactText(s string) string {
	if !im.opts.Redact {
		return s
	}
	for _, n := range im.clusterNames {
		s = replaceWord(s, n, hash(clusterHashPrefix, n), isAlnum)
	}
	for _, a := range sortedKeys(im.accounts) {
		s = replaceWord(s, a, im.accountID(a), isDigit)
	}
	return s
}

func isAlnum(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// replaceWord replaces old in s where the bytes around it are not inWord.
func replaceWord(s, old, repl string, inWord func(byte) bool) string {
	var b strings.Builder
	for {
		i := strings.Index(s, old)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(old)
		if (i == 0 || !inWord(s[i-1])) && (end == len(s) || !inWord(s[end])) {
			b.WriteString(s[:i])
			b.WriteString(repl)
		} else {
			b.WriteString(s[:end])
		}
		s = s[end:]
	}
}

// redactID hashes an identifier (an AMI's ID or name) with --redact,
// keeping its prefix.
func (im *Importer) redactID(prefix, s string) string {
	if !im.opts.Redact {
		return s
	}
	return hash(prefix, s)
}

// redactImage is the Cluster Autoscaler's image with --redact: the account
// of an ECR registry replaced, and a registry other than the public ones
// replaced by registry.invalid (its name says whose it is); the image's
// name and tag stay (they say its version).
func (im *Importer) redactImage(image string) string {
	if !im.opts.Redact {
		return image
	}
	image = im.redactText(image)
	i := strings.LastIndexByte(image, '/')
	if i < 0 {
		return image
	}
	host, _, _ := strings.Cut(image, "/")
	switch {
	case strings.Contains(host, ".dkr.ecr."), host == "registry.k8s.io", host == "k8s.gcr.io", host == "public.ecr.aws",
		host == "docker.io", host == "gcr.io", host == "quay.io", host == "ghcr.io":
		return image
	}
	return "registry.invalid" + image[i:]
}

// resourceIDRE finds AWS resource IDs (8 or 17 hex digits after the type).
var resourceIDRE = regexp.MustCompile(`\b(subnet|sg|vpc|eni|igw|nat|rtb|lt|vol|snap|fs|fsap|ami|i|eipalloc|tgw|pl)-([0-9a-f]{17}|[0-9a-f]{8})\b`)

// scrub is the last pass of --redact over a written document: account IDs
// and AWS resource IDs left anywhere (the allow lists should have left
// none) are replaced by hashes of their form, the same everywhere.
func (im *Importer) scrub(doc []byte) []byte {
	if !im.opts.Redact {
		return doc
	}
	for _, a := range sortedKeys(im.accounts) {
		if bytes.Contains(doc, []byte(a)) {
			doc = []byte(replaceWord(string(doc), a, im.accountID(a), isDigit))
		}
	}
	return resourceIDRE.ReplaceAllFunc(doc, func(id []byte) []byte {
		typ, hexID, _ := bytes.Cut(id, []byte("-"))
		sum := sha256.Sum256(append([]byte("clustersim/redact/id\x00"), id...))
		return append(append(typ, '-'), hex.EncodeToString(sum[:])[:len(hexID)]...)
	})
}

// nodeSelectorTerms redacts the values of node selector terms (node
// affinity, a volume's node affinity) as the node labels they match;
// matchFields on metadata.name names nodes.
func (im *Importer) nodeSelectorTerms(ts []corev1.NodeSelectorTerm) []corev1.NodeSelectorTerm {
	if !im.opts.Redact || ts == nil {
		return ts
	}
	out := make([]corev1.NodeSelectorTerm, len(ts))
	for i, t := range ts {
		out[i] = corev1.NodeSelectorTerm{MatchExpressions: im.nodeRequirements(t.MatchExpressions, false),
			MatchFields: im.nodeRequirements(t.MatchFields, true)}
	}
	return out
}

func (im *Importer) nodeRequirements(rs []corev1.NodeSelectorRequirement, fields bool) []corev1.NodeSelectorRequirement {
	if rs == nil {
		return nil
	}
	out := make([]corev1.NodeSelectorRequirement, len(rs))
	for i, r := range rs {
		o := corev1.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator}
		for _, v := range r.Values {
			if fields {
				if r.Key == "metadata.name" {
					v = im.nodeName(v)
				}
			} else {
				v = im.nodeLabelValue(r.Key, v)
			}
			o.Values = append(o.Values, v)
		}
		out[i] = o
	}
	return out
}

// nodeAffinity redacts a pod's node affinity (see nodeSelectorTerms).
func (im *Importer) nodeAffinity(a *corev1.NodeAffinity) *corev1.NodeAffinity {
	if !im.opts.Redact || a == nil {
		return a
	}
	out := &corev1.NodeAffinity{}
	if r := a.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
		out.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: im.nodeSelectorTerms(r.NodeSelectorTerms)}
	}
	for _, p := range a.PreferredDuringSchedulingIgnoredDuringExecution {
		t := im.nodeSelectorTerms([]corev1.NodeSelectorTerm{p.Preference})[0]
		out.PreferredDuringSchedulingIgnoredDuringExecution = append(out.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.PreferredSchedulingTerm{Weight: p.Weight, Preference: t})
	}
	return out
}

// nodeSelector redacts a pod's nodeSelector as the node labels it matches.
func (im *Importer) nodeSelector(sel map[string]string) map[string]string {
	if !im.opts.Redact || len(sel) == 0 {
		return sel
	}
	out := make(map[string]string, len(sel))
	for k, v := range sel {
		out[k] = im.nodeLabelValue(k, v)
	}
	return out
}

// namespaceLabelValue is a namespace label's value with --redact:
// kubernetes.io/metadata.name (which the API server sets to the name)
// follows the namespace's redacted name, the others are hashed.
func (im *Importer) namespaceLabelValue(key, v string) string {
	if !im.opts.Redact {
		return v
	}
	if key == corev1.LabelMetadataName {
		return im.namespace(v)
	}
	return hash("v-", v)
}

// namespaceSelector redacts a selector of namespaces as their labels.
func (im *Importer) namespaceSelector(sel *metav1.LabelSelector) *metav1.LabelSelector {
	if !im.opts.Redact || sel == nil {
		return sel
	}
	out := &metav1.LabelSelector{}
	for k, v := range sel.MatchLabels {
		if out.MatchLabels == nil {
			out.MatchLabels = map[string]string{}
		}
		out.MatchLabels[k] = im.namespaceLabelValue(k, v)
	}
	for _, e := range sel.MatchExpressions {
		r := metav1.LabelSelectorRequirement{Key: e.Key, Operator: e.Operator}
		for _, v := range e.Values {
			r.Values = append(r.Values, im.namespaceLabelValue(e.Key, v))
		}
		out.MatchExpressions = append(out.MatchExpressions, r)
	}
	return out
}
