package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/manifest"
)

// EksctlAPIVersion and EksctlKind identify an eksctl ClusterConfig.
const (
	EksctlAPIVersion = "eksctl.io/v1alpha5"
	EksctlKind       = "ClusterConfig"
)

// eksctl defaults (eksctl pkg/apis/eksctl.io/v1alpha5/types.go and
// validation.go).
const (
	// DefaultEksctlInstanceType is DefaultNodeType.
	DefaultEksctlInstanceType = "m5.large"
	// DefaultEksctlNodeCount is DefaultNodeCount: minSize, and from it
	// desiredCapacity and maxSize, when none is given.
	DefaultEksctlNodeCount = 2
	// DefaultEksctlVolumeGiB is DefaultNodeVolumeSize (the root volume,
	// which is the node's ephemeral storage).
	DefaultEksctlVolumeGiB = 80
	// maxMixedInstanceTypes is eksctl's limit for instancesDistribution.
	maxMixedInstanceTypes = 20
)

// ignored accepts any value: eksctl fields that do not change where pods
// land (networking, IAM, AMIs, SSH, add-ons, ...).
type ignored struct{}

// UnmarshalJSON accepts anything.
func (*ignored) UnmarshalJSON([]byte) error { return nil }

// rawTaints keeps the taints field as written: a list of {key, value,
// effect} or eksctl's map form {key: "value:Effect"}.
type rawTaints struct{ data json.RawMessage }

// UnmarshalJSON keeps the raw value; compile checks it field by field.
func (t *rawTaints) UnmarshalJSON(b []byte) error {
	t.data = append(json.RawMessage(nil), b...)
	return nil
}

// clusterConfig mirrors eksctl's ClusterConfig (v1alpha5) so that an
// unknown field is an error; the parts that do not matter here are
// accepted as they are.
type clusterConfig struct {
	APIVersion                  string             `json:"apiVersion"`
	Kind                        string             `json:"kind"`
	Metadata                    clusterMeta        `json:"metadata"`
	UpgradePolicy               *ignored           `json:"upgradePolicy,omitempty"`
	KubernetesNetworkConfig     *ignored           `json:"kubernetesNetworkConfig,omitempty"`
	AutoModeConfig              *autoModeConfig    `json:"autoModeConfig,omitempty"`
	RemoteNetworkConfig         *ignored           `json:"remoteNetworkConfig,omitempty"`
	IAM                         *ignored           `json:"iam,omitempty"`
	IAMIdentityMappings         *ignored           `json:"iamIdentityMappings,omitempty"`
	IdentityProviders           *ignored           `json:"identityProviders,omitempty"`
	AccessConfig                *ignored           `json:"accessConfig,omitempty"`
	VPC                         *ignored           `json:"vpc,omitempty"`
	Addons                      *ignored           `json:"addons,omitempty"`
	AddonsConfig                *ignored           `json:"addonsConfig,omitempty"`
	PrivateCluster              *ignored           `json:"privateCluster,omitempty"`
	NodeGroups                  []nodeGroup        `json:"nodeGroups,omitempty"`
	ManagedNodeGroups           []managedNodeGroup `json:"managedNodeGroups,omitempty"`
	FargateProfiles             *ignored           `json:"fargateProfiles,omitempty"`
	AvailabilityZones           []string           `json:"availabilityZones,omitempty"`
	LocalZones                  []string           `json:"localZones,omitempty"`
	CloudWatch                  *ignored           `json:"cloudWatch,omitempty"`
	SecretsEncryption           *ignored           `json:"secretsEncryption,omitempty"`
	GitOps                      *ignored           `json:"gitops,omitempty"`
	Karpenter                   *ignored           `json:"karpenter,omitempty"`
	Outpost                     *ignored           `json:"outpost,omitempty"`
	ControlPlaneScalingConfig   *ignored           `json:"controlPlaneScalingConfig,omitempty"`
	ZonalShiftConfig            *ignored           `json:"zonalShiftConfig,omitempty"`
	KubeAPIServerConfig         *ignored           `json:"kubeAPIServerConfig,omitempty"`
	KubeSchedulerConfig         *ignored           `json:"kubeSchedulerConfig,omitempty"`
	KubeControllerManagerConfig *ignored           `json:"kubeControllerManagerConfig,omitempty"`
	Capabilities                *ignored           `json:"capabilities,omitempty"`
}

// autoModeConfig mirrors eksctl's AutoModeConfig (EKS Auto Mode).
type autoModeConfig struct {
	Enabled     *bool     `json:"enabled,omitempty"`
	NodeRoleARN *ignored  `json:"nodeRoleARN,omitempty"`
	NodePools   *[]string `json:"nodePools,omitempty"`
}

type clusterMeta struct {
	Name               string            `json:"name"`
	Region             string            `json:"region"`
	Version            string            `json:"version,omitempty"`
	ForceUpdateVersion *bool             `json:"forceUpdateVersion,omitempty"`
	RollbackConfig     *ignored          `json:"rollbackConfig,omitempty"`
	Tags               map[string]string `json:"tags,omitempty"`
	Annotations        map[string]string `json:"annotations,omitempty"`
}

// nodeGroupBase mirrors eksctl's NodeGroupBase with its ScalingConfig
// inlined, and its volume fields in nodeGroupVolumes (inlined too, as
// encoding/json does with an embedded struct).
type nodeGroupBase struct {
	nodeGroupVolumes
	Name              string            `json:"name"`
	AMIFamily         string            `json:"amiFamily,omitempty"`
	InstanceType      string            `json:"instanceType,omitempty"`
	AvailabilityZones []string          `json:"availabilityZones,omitempty"`
	Subnets           *ignored          `json:"subnets,omitempty"`
	InstancePrefix    string            `json:"instancePrefix,omitempty"`
	InstanceName      string            `json:"instanceName,omitempty"`
	DesiredCapacity   *int              `json:"desiredCapacity,omitempty"`
	MinSize           *int              `json:"minSize,omitempty"`
	MaxSize           *int              `json:"maxSize,omitempty"`
	SSH               *ignored          `json:"ssh,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	PrivateNetworking *bool             `json:"privateNetworking,omitempty"`
	Tags              map[string]string `json:"tags,omitempty"`
	IAM               *nodeGroupIAM     `json:"iam,omitempty"`
	AMI               string            `json:"ami,omitempty"`
	SecurityGroups    *ignored          `json:"securityGroups,omitempty"`
	MaxPodsPerNode    int               `json:"maxPodsPerNode,omitempty"`
	// ASGSuspendProcesses may stop the ASG from launching or replacing.
	ASGSuspendProcesses      []string `json:"asgSuspendProcesses,omitempty"`
	PreBootstrapCommands     *ignored `json:"preBootstrapCommands,omitempty"`
	OverrideBootstrapCommand *string  `json:"overrideBootstrapCommand,omitempty"`
	PropagateASGTags         *bool    `json:"propagateASGTags,omitempty"`
	DisableIMDSv1            *bool    `json:"disableIMDSv1,omitempty"`
	DisablePodIMDS           *bool    `json:"disablePodIMDS,omitempty"`
	Placement                *ignored `json:"placement,omitempty"`
	EFAEnabled               *bool    `json:"efaEnabled,omitempty"`
	InstanceSelector         *ignored `json:"instanceSelector,omitempty"`
	Bottlerocket             *ignored `json:"bottlerocket,omitempty"`
	EnableDetailedMonitoring *bool    `json:"enableDetailedMonitoring,omitempty"`
	CapacityReservation      *ignored `json:"capacityReservation,omitempty"`
	InstanceMarketOptions    *ignored `json:"instanceMarketOptions,omitempty"`
	OutpostARN               string   `json:"outpostARN,omitempty"`
}

// nodeGroupVolumes are NodeGroupBase's root and additional volume fields.
type nodeGroupVolumes struct {
	VolumeSize                *int     `json:"volumeSize,omitempty"`
	EBSOptimized              *bool    `json:"ebsOptimized,omitempty"`
	VolumeType                *string  `json:"volumeType,omitempty"`
	VolumeName                *string  `json:"volumeName,omitempty"`
	VolumeEncrypted           *bool    `json:"volumeEncrypted,omitempty"`
	VolumeKmsKeyID            *string  `json:"volumeKmsKeyID,omitempty"`
	VolumeIOPS                *int     `json:"volumeIOPS,omitempty"`
	VolumeThroughput          *int     `json:"volumeThroughput,omitempty"`
	AdditionalVolumes         *ignored `json:"additionalVolumes,omitempty"`
	AdditionalEncryptedVolume *ignored `json:"additionalEncryptedVolume,omitempty"`
}

type nodeGroupIAM struct {
	AttachPolicy                    *ignored          `json:"attachPolicy,omitempty"`
	AttachPolicyARNs                *ignored          `json:"attachPolicyARNs,omitempty"`
	InstanceProfileARN              string            `json:"instanceProfileARN,omitempty"`
	InstanceRoleARN                 string            `json:"instanceRoleARN,omitempty"`
	InstanceRoleName                string            `json:"instanceRoleName,omitempty"`
	InstanceRolePermissionsBoundary string            `json:"instanceRolePermissionsBoundary,omitempty"`
	WithAddonPolicies               *iamAddonPolicies `json:"withAddonPolicies,omitempty"`
}

type iamAddonPolicies struct {
	ImageBuilder              *bool `json:"imageBuilder,omitempty"`
	AutoScaler                *bool `json:"autoScaler,omitempty"`
	ExternalDNS               *bool `json:"externalDNS,omitempty"`
	CertManager               *bool `json:"certManager,omitempty"`
	AppMesh                   *bool `json:"appMesh,omitempty"`
	AppMeshPreview            *bool `json:"appMeshPreview,omitempty"`
	EBS                       *bool `json:"ebs,omitempty"`
	FSX                       *bool `json:"fsx,omitempty"`
	EFS                       *bool `json:"efs,omitempty"`
	AWSLoadBalancerController *bool `json:"awsLoadBalancerController,omitempty"`
	ALBIngress                *bool `json:"albIngress,omitempty"`
	XRay                      *bool `json:"xRay,omitempty"`
	CloudWatch                *bool `json:"cloudWatch,omitempty"`
}

// nodeGroup mirrors eksctl's (self-managed) NodeGroup.
type nodeGroup struct {
	nodeGroupBase
	InstancesDistribution    *instancesDistribution `json:"instancesDistribution,omitempty"`
	ASGMetricsCollection     *ignored               `json:"asgMetricsCollection,omitempty"`
	CPUCredits               *string                `json:"cpuCredits,omitempty"`
	ClassicLoadBalancerNames *ignored               `json:"classicLoadBalancerNames,omitempty"`
	TargetGroupARNs          *ignored               `json:"targetGroupARNs,omitempty"`
	Taints                   *rawTaints             `json:"taints,omitempty"`
	UpdateConfig             *ignored               `json:"updateConfig,omitempty"`
	ClusterDNS               string                 `json:"clusterDNS,omitempty"`
	KubeletExtraConfig       *ignored               `json:"kubeletExtraConfig,omitempty"`
	ContainerRuntime         *string                `json:"containerRuntime,omitempty"`
	MaxInstanceLifetime      *int                   `json:"maxInstanceLifetime,omitempty"`
	LocalZones               []string               `json:"localZones,omitempty"`
	EnclaveEnabled           *bool                  `json:"enclaveEnabled,omitempty"`
}

type instancesDistribution struct {
	InstanceTypes                       []string `json:"instanceTypes,omitempty"`
	MaxPrice                            *float64 `json:"maxPrice,omitempty"`
	OnDemandBaseCapacity                *int     `json:"onDemandBaseCapacity,omitempty"`
	OnDemandPercentageAboveBaseCapacity *int     `json:"onDemandPercentageAboveBaseCapacity,omitempty"`
	SpotInstancePools                   *int     `json:"spotInstancePools,omitempty"`
	SpotAllocationStrategy              *string  `json:"spotAllocationStrategy,omitempty"`
	CapacityRebalance                   bool     `json:"capacityRebalance,omitempty"`
}

// managedNodeGroup mirrors eksctl's ManagedNodeGroup.
type managedNodeGroup struct {
	nodeGroupBase
	InstanceTypes    []string   `json:"instanceTypes,omitempty"`
	Spot             bool       `json:"spot,omitempty"`
	Taints           *rawTaints `json:"taints,omitempty"`
	UpdateConfig     *ignored   `json:"updateConfig,omitempty"`
	LaunchTemplate   *ignored   `json:"launchTemplate,omitempty"`
	ReleaseVersion   string     `json:"releaseVersion,omitempty"`
	NodeRepairConfig *ignored   `json:"nodeRepairConfig,omitempty"`
}

// Env is what compiling node groups needs besides the document: the
// instance-type catalogue and the scenario's region and zones.
type Env struct {
	Catalog *catalog.Catalog
	Region  string
	Zones   []string
}

// CompileClusterConfig compiles the managedNodeGroups and nodeGroups of an
// eksctl ClusterConfig (eksctl.io/v1alpha5) into node groups, in the order
// written (managed groups first). Fields about networking, IAM, AMIs and
// SSH are accepted and ignored; unknown fields, unknown instance types,
// zones outside the scenario's, sizes eksctl would refuse and malformed
// taints are errors at their line. Warnings are accepted input that may
// not do what its author expects.
func CompileClusterConfig(d *manifest.Document, env Env) ([]NodeGroup, []*manifest.Error, error) {
	if d.APIVersion != EksctlAPIVersion {
		return nil, nil, manifest.Errors{d.Errorf("apiVersion", "use apiVersion: eksctl.io/v1alpha5", "ClusterConfig apiVersion %q is not supported", d.APIVersion)}.Err()
	}
	if env.Catalog == nil {
		return nil, nil, manifest.Errors{d.Errorf("", "", "internal error: no instance-type catalogue")}.Err()
	}
	var cfg clusterConfig
	if err := d.Decode(&cfg); err != nil {
		return nil, nil, err
	}
	c := &compiler{d: d, env: env, cfg: &cfg}
	if cfg.Metadata.Name == "" {
		c.fail("metadata.name", "name the cluster as eksctl requires", "metadata.name is required")
	} else if !eksctlName.MatchString(cfg.Metadata.Name) {
		c.fail("metadata.name", eksctlNameHint, "cluster name %s is not one eksctl accepts", quoteName(cfg.Metadata.Name))
	}
	if cfg.Metadata.Region != "" && env.Region != "" && cfg.Metadata.Region != env.Region {
		c.warn("metadata.region", "region %s differs from the scenario's region %s: the scenario's region is used", cfg.Metadata.Region, env.Region)
	}
	if len(cfg.LocalZones) > 0 {
		c.warn("localZones", "local zones are not modelled: node groups use their availability zones only")
	}
	names := map[string]string{}
	for i := range cfg.ManagedNodeGroups {
		m := &cfg.ManagedNodeGroups[i]
		path := fmt.Sprintf("managedNodeGroups[%d]", i)
		c.checkName(names, m.Name, path)
		if g, ok := c.managed(m, path); ok {
			c.out = append(c.out, g)
		}
	}
	for i := range cfg.NodeGroups {
		n := &cfg.NodeGroups[i]
		path := fmt.Sprintf("nodeGroups[%d]", i)
		c.checkName(names, n.Name, path)
		if g, ok := c.unmanaged(n, path); ok {
			c.out = append(c.out, g)
		}
	}
	if len(cfg.ManagedNodeGroups)+len(cfg.NodeGroups) == 0 && !autoModeOn(cfg.AutoModeConfig) {
		c.warn("", "no managedNodeGroups or nodeGroups: the Cluster Autoscaler has nothing to scale")
	}
	if len(c.errs) > 0 {
		return nil, c.warns, c.errs.Err()
	}
	return c.out, c.warns, nil
}

type compiler struct {
	d     *manifest.Document
	env   Env
	cfg   *clusterConfig
	out   []NodeGroup
	errs  manifest.Errors
	warns []*manifest.Error
	// zoneErrs are the zone paths already reported.
	zoneErrs map[string]bool
}

func (c *compiler) fail(path, hint, format string, a ...any) {
	c.errs = append(c.errs, c.d.Errorf(path, hint, format, a...))
}

func (c *compiler) warn(path, format string, a ...any) {
	c.warns = append(c.warns, c.d.Errorf(path, "", format, a...))
}

// warnc is warn with a code, and the fix the message words (fix).
func (c *compiler) warnc(code, fix, path, format string, a ...any) {
	w := c.d.Errorf(path, "", format, a...)
	w.Code, w.Fix = code, fix
	c.warns = append(c.warns, w)
}

// autoMode reports whether EKS Auto Mode is on. Its built-in NodePools
// are simulated by the Karpenter model, which reads the same
// autoModeConfig (sim/karpenter/apis, AutoMode): nothing for the Cluster
// Autoscaler to do.
func autoModeOn(a *autoModeConfig) bool {
	return a != nil && a.Enabled != nil && *a.Enabled
}

func (c *compiler) checkName(seen map[string]string, name, path string) {
	if name == "" {
		c.fail(path+".name", "give every node group a name", "name is required")
		return
	}
	if prev, ok := seen[name]; ok {
		c.fail(path+".name", "node group names must be unique in a cluster", "node group %q is also defined at %s", name, prev)
		return
	}
	if !eksctlName.MatchString(name) {
		c.fail(path+".name", eksctlNameHint, "node group name %s is not one eksctl accepts", quoteName(name))
	}
	seen[name] = path
}

// eksctlName is the pattern eksctl requires of cluster and node group
// names (its CloudFormation stacks are named after them: "validation for
// NAME failed, name must satisfy regular expression pattern:
// [a-zA-Z][-a-zA-Z0-9]*"), at most 128 characters, a stack name's limit.
var eksctlName = regexp.MustCompile(`^[a-zA-Z][-a-zA-Z0-9]{0,127}$`)

const eksctlNameHint = "rename it as eksctl requires: a letter, then letters, digits and '-' (the pattern [a-zA-Z][-a-zA-Z0-9]*)"

// quoteName is a name in a message: Go-quoted (a control character shows
// as an escape) and cut at 100 bytes.
func quoteName(s string) string {
	if len(s) > 100 {
		return fmt.Sprintf("%q... (%d bytes)", s[:100], len(s))
	}
	return fmt.Sprintf("%q", s)
}

// nodeGroupKind is eksctl's kind of node group: managedNodeGroups or
// (self-managed) nodeGroups.
type nodeGroupKind bool

const (
	managedGroup     nodeGroupKind = true
	selfManagedGroup nodeGroupKind = false
)

// common compiles the fields both kinds share; ok is false after an error.
func (c *compiler) common(b *nodeGroupBase, path string, types []string, typesPath string, kind nodeGroupKind) (NodeGroup, bool) {
	nerr := len(c.errs)
	g := NodeGroup{Name: b.Name, Managed: kind == managedGroup, File: c.d.File, Line: c.d.LineOf(path), Path: path}
	g.ASGName = asgName(c.cfg.Metadata.Name, b.Name, kind)

	// Windows node groups are refused: their nodes would need Windows
	// prices, overheads and the os label, none of which is modelled.
	if strings.HasPrefix(strings.ToLower(b.AMIFamily), "windows") {
		c.fail(path+".amiFamily", "remove this node group to simulate the Linux part of the cluster (pods that need Windows nodes then stay Pending)",
			"Windows nodes are not simulated (%s): the simulator has no Windows prices, node overheads or Windows-only scheduling", b.AMIFamily)
		return g, false
	}
	// Instance types, checked against the catalogue.
	if len(types) == 0 && b.InstanceSelector != nil {
		c.fail(path+".instanceSelector", "list the instance types the selector resolves to in instanceTypes", "instanceSelector is resolved by eksctl against the live EC2 API, which the simulation cannot do")
		return g, false
	}
	if len(types) == 0 {
		types = []string{DefaultEksctlInstanceType}
	}
	for i, t := range types {
		p := typesPath
		if typesPath != path+".instanceType" {
			p = fmt.Sprintf("%s[%d]", typesPath, i)
		}
		if _, ok := c.env.Catalog.Lookup(t); !ok {
			hint := "use an EC2 instance type of the embedded catalogue"
			if s := catalog.Suggest(c.env.Catalog, t); len(s) > 0 {
				hint = "did you mean " + strings.Join(s, ", ") + "?"
			}
			c.fail(p, hint, "unknown instance type %q", t)
			continue
		}
		if slices.Contains(g.InstanceTypes, t) {
			c.fail(p, "list each instance type once", "instance type %s is listed twice", t)
			continue
		}
		g.InstanceTypes = append(g.InstanceTypes, t)
	}
	// Zones: the group's, else the cluster's, else the scenario's.
	zones := b.AvailabilityZones
	zonesPath := path + ".availabilityZones"
	if len(zones) == 0 {
		zones, zonesPath = c.cfg.AvailabilityZones, "availabilityZones"
	}
	if len(zones) == 0 {
		zones, zonesPath = c.env.Zones, ""
	}
	for i, z := range zones {
		if len(c.env.Zones) > 0 && !slices.Contains(c.env.Zones, z) {
			p := zonesPath
			if p != "" {
				p = fmt.Sprintf("%s[%d]", p, i)
			}
			if c.zoneErrs[p] { // the cluster's zones, already reported for an earlier group
				continue
			}
			if c.zoneErrs == nil {
				c.zoneErrs = map[string]bool{}
			}
			c.zoneErrs[p] = true
			if msg := catalog.CheckZone(c.env.Region, z); msg != "" && catalog.Zones(c.env.Region) != nil {
				c.fail(p, "use zones of "+c.env.Region+" (the scenario's region), e.g. "+strings.Join(c.env.Zones, ", "), "%s", msg)
				continue
			}
			c.fail(p, "add it to the scenario's spec.zones or remove it here", "zone %s is not one of the scenario's zones (%s)", z, strings.Join(c.env.Zones, ", "))
		}
	}
	g.Zones = sortedCopy(zones)
	g.Zones = slices.Compact(g.Zones)

	// Sizes, defaulted and checked as eksctl does (validation.go).
	for _, f := range []struct {
		v    *int
		name string
	}{{b.MinSize, "minSize"}, {b.MaxSize, "maxSize"}, {b.DesiredCapacity, "desiredCapacity"}} {
		if f.v != nil && *f.v < 0 {
			c.fail(path+"."+f.name, "", "%s must not be negative, got %d", f.name, *f.v)
		}
	}
	if len(c.errs) > nerr {
		return g, false
	}
	switch {
	case b.MinSize != nil:
		g.MinSize = *b.MinSize
	case b.DesiredCapacity != nil:
		g.MinSize = *b.DesiredCapacity
	default:
		g.MinSize = DefaultEksctlNodeCount
	}
	switch {
	case b.MaxSize != nil:
		g.MaxSize = *b.MaxSize
	case b.DesiredCapacity != nil:
		g.MaxSize = *b.DesiredCapacity
	default:
		g.MaxSize = g.MinSize
	}
	if b.MaxSize == nil && g.MaxSize == 0 {
		g.MaxSize = 1 // eksctl's DefaultMaxSize
	}
	g.DesiredCapacity = g.MinSize
	if b.DesiredCapacity != nil {
		g.DesiredCapacity = *b.DesiredCapacity
	}
	switch {
	case g.MaxSize < g.MinSize:
		c.fail(path+".maxSize", "raise maxSize or lower minSize", "maxSize %d is below minSize %d", g.MaxSize, g.MinSize)
	case g.DesiredCapacity < g.MinSize:
		c.fail(path+".desiredCapacity", "raise desiredCapacity or lower minSize", "desiredCapacity %d is below minSize %d", g.DesiredCapacity, g.MinSize)
	case g.DesiredCapacity > g.MaxSize:
		c.fail(path+".desiredCapacity", "lower desiredCapacity or raise maxSize", "desiredCapacity %d is above maxSize %d", g.DesiredCapacity, g.MaxSize)
	}
	if g.MaxSize == g.MinSize && b.MinSize != nil {
		c.warn(path, "minSize equals maxSize (%d): the Cluster Autoscaler can never resize this group", g.MinSize)
	}

	// Labels: the user's plus the two eksctl always adds.
	g.Labels = map[string]string{}
	for k, v := range b.Labels {
		g.Labels[k] = v
	}
	g.Labels[LabelEksctlCluster] = c.cfg.Metadata.Name
	g.Labels[LabelEksctlNodeGroup] = b.Name

	// Allocatable inputs.
	if b.MaxPodsPerNode < 0 {
		c.fail(path+".maxPodsPerNode", "", "maxPodsPerNode must not be negative")
	}
	g.Kubelet.MaxPods = int32(b.MaxPodsPerNode)
	g.Kubelet.RootVolumeGiB = DefaultEksctlVolumeGiB
	if b.VolumeSize != nil {
		if *b.VolumeSize <= 0 {
			c.fail(path+".volumeSize", "", "volumeSize must be positive (GiB)")
		}
		g.Kubelet.RootVolumeGiB = int64(*b.VolumeSize)
	}
	for _, p := range b.ASGSuspendProcesses {
		switch p {
		case "Launch", "ReplaceUnhealthy", "AZRebalance", "HealthCheck":
			c.warn(path+".asgSuspendProcesses", "suspending %s is not modelled: the ASG behaves as if it were running", p)
		}
	}
	if b.OutpostARN != "" {
		c.warn(path+".outpostARN", "Outposts are not modelled: the group launches in the region's zones")
	}
	return g, len(c.errs) == nerr
}

// taintForms says how a node group may write its taints: a list (as
// managedNodeGroups must), or a list or a map (nodeGroups).
type taintForms bool

const (
	taintList      taintForms = false
	taintListOrMap taintForms = true
)

// taints compiles a taints field. eksctl accepts the map form only for
// (self-managed) nodeGroups.
func (c *compiler) taints(raw *rawTaints, path string, forms taintForms) []Taint {
	allowMap := forms == taintListOrMap
	if raw == nil {
		return nil
	}
	data := bytes.TrimSpace(raw.data)
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	var out []Taint
	if data[0] == '{' {
		if !allowMap {
			c.fail(path, "write taints as a list: [{key: k, value: v, effect: NoSchedule}]", "eksctl accepts the map form of taints only under nodeGroups; managedNodeGroups take a list")
			return nil
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			c.fail(path, "", "taints: %v", err)
			return nil
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			p := keyPath(path, k)
			s, ok := m[k].(string)
			if !ok {
				c.fail(p, `write "<value>:<effect>", e.g. "gpu:NoSchedule"`, "a taint in the map form must be a string")
				continue
			}
			value, effect, found := strings.Cut(s, ":")
			if !found {
				value, effect = "", s
			}
			if strings.Contains(effect, ":") {
				c.fail(p, `write "<value>:<effect>"`, "%q has more than one colon", s)
				continue
			}
			if t, ok := c.taint(k, value, effect, p); ok {
				out = append(out, t)
			}
		}
		return out
	}
	if data[0] != '[' {
		c.fail(path, "write a list [{key, value, effect}] or, under nodeGroups, a map {key: \"value:Effect\"}", "taints must be a list or a map")
		return nil
	}
	var list []map[string]any
	if err := json.Unmarshal(data, &list); err != nil {
		c.fail(path, "each taint is {key, value, effect}", "taints: %v", err)
		return nil
	}
	for i, item := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		var key, value, effect string
		bad := false
		for _, f := range slices.Sorted(maps.Keys(item)) {
			s, isString := item[f].(string)
			switch f {
			case "key", "value", "effect":
				if !isString {
					c.fail(p+"."+f, "quote it", "%s must be a string", f)
					bad = true
				}
			default:
				hint := "a taint has key, value and effect"
				if s := closestName(f, []string{"key", "value", "effect"}); s != "" {
					hint = fmt.Sprintf("did you mean %q?", s)
				}
				c.fail(p+"."+f, hint, "unknown field %q", f)
				bad = true
			}
			switch f {
			case "key":
				key = s
			case "value":
				value = s
			case "effect":
				effect = s
			}
		}
		if bad {
			continue
		}
		if t, ok := c.taint(key, value, effect, p); ok {
			out = append(out, t)
		}
	}
	return out
}

func (c *compiler) taint(key, value, effect, path string) (Taint, bool) {
	if key == "" {
		c.fail(path, "", "a taint needs a key")
		return Taint{}, false
	}
	e, ok := NormalizeEffect(effect)
	if !ok {
		c.fail(path, "use NoSchedule, PreferNoSchedule or NoExecute (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE also accepted)", "taint %s: unknown effect %q", key, effect)
		return Taint{}, false
	}
	return Taint{Key: key, Value: value, Effect: e}, true
}

// keyPath appends a map key to a field path as package manifest writes
// paths: .key for identifiers, ["key"] otherwise.
func keyPath(path, key string) string {
	simple := key != ""
	for i, r := range key {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_', r == '$':
		case (r >= '0' && r <= '9') || r == '-':
			simple = simple && i > 0
		default:
			simple = false
		}
	}
	if !simple {
		return fmt.Sprintf("%s[%q]", path, key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func (c *compiler) managed(m *managedNodeGroup, path string) (NodeGroup, bool) {
	nerr := len(c.errs)
	types, typesPath := m.InstanceTypes, path+".instanceTypes"
	if m.InstanceType != "" {
		if len(m.InstanceTypes) > 0 {
			c.fail(path+".instanceType", "remove one of them", "only one of instanceType or instanceTypes can be specified")
			return NodeGroup{}, false
		}
		types, typesPath = []string{m.InstanceType}, path+".instanceType"
	}
	g, ok := c.common(&m.nodeGroupBase, path, types, typesPath, managedGroup)
	g.Taints = c.taints(m.Taints, path+".taints", taintList)
	if !ok || len(c.errs) > nerr {
		return g, false
	}
	capType := capacityTypeOnDemand
	g.OnDemandPercent = 100
	g.OnDemandStrategy = cloud.Prioritized
	// EKS managed spot groups use capacity-optimized and capacity
	// rebalancing (EKS user guide, managed node groups, Spot).
	g.SpotStrategy = cloud.CapacityOptimized
	if m.Spot {
		capType = capacityTypeSpot
		g.OnDemandPercent = 0
		g.CapacityRebalance = true
	}
	g.Labels[LabelEKSNodeGroup] = m.Name
	g.Labels[LabelCapacityType] = capType

	// ASG tags: EKS tags a managed group's ASG for discovery; the group's
	// own tags reach the ASG only with propagateASGTags.
	cluster := c.cfg.Metadata.Name
	g.Tags = map[string]string{
		"eks:cluster-name":                     cluster,
		"eks:nodegroup-name":                   m.Name,
		TagEnabled:                             "true",
		"k8s.io/cluster-autoscaler/" + cluster: "owned",
		"kubernetes.io/cluster/" + cluster:     "owned",
	}
	userTags := c.userTags(m.Tags)
	if m.PropagateASGTags != nil && *m.PropagateASGTags {
		for k, v := range userTags {
			g.Tags[k] = v
		}
		addCATags(g.Tags, g.Labels, g.Taints)
	}
	// The managed group's taints reach the template through the EKS API,
	// so the provider skipping eksctl's valueless taint tags is moot.
	generated := map[string]bool{}
	for _, t := range g.Taints {
		generated[TagPrefixTaint+t.Key] = true
	}

	// What EKS's DescribeNodegroup gives the provider: the group's labels
	// (eksctl's included), its capacity type, name, AMI type and version,
	// and its taints.
	it, _ := c.env.Catalog.Lookup(g.InstanceTypes[0])
	mng := map[string]string{}
	for k, v := range g.Labels {
		mng[k] = v
	}
	mng["amiType"] = amiType(it)
	if v := c.cfg.Metadata.Version; v != "" {
		mng["k8sVersion"] = v
	}
	tpl, warns := BuildTemplate(it, c.env.Region, g.Zones, g.Tags, mng, g.Taints)
	// Resource tags on the managed node group itself override the ASG's.
	for _, k := range slices.Sorted(maps.Keys(userTags)) {
		if name, ok := strings.CutPrefix(k, TagPrefixResources); ok && name != "" {
			t2, w2 := BuildTemplate(it, c.env.Region, g.Zones, map[string]string{k: userTags[k]}, nil, nil)
			if q, ok := t2.Capacity[name]; ok {
				tpl.Capacity[name] = q
			}
			for _, w := range w2 {
				c.warnc(w.Code, "", path+".tags", "%s", w.Msg)
			}
		}
	}
	for _, w := range warns {
		if !generated[w.Tag] {
			c.warnc(w.Code, "", path+".tags", "%s", w.Msg)
		}
	}
	g.Template = tpl
	return g, true
}

func (c *compiler) unmanaged(n *nodeGroup, path string) (NodeGroup, bool) {
	nerr := len(c.errs)
	types, typesPath := []string(nil), path+".instanceType"
	if n.InstanceType != "" && n.InstanceType != "mixed" {
		types = []string{n.InstanceType}
	}
	dist := n.InstancesDistribution
	if dist != nil {
		if n.InstanceType != "" && n.InstanceType != "mixed" {
			c.fail(path+".instanceType", `remove instanceType or set it to "mixed"`, `instanceType should be "mixed" or unset when using instancesDistribution`)
			return NodeGroup{}, false
		}
		if len(dist.InstanceTypes) == 0 {
			c.fail(path+".instancesDistribution.instanceTypes", "list the instance types of the mixed-instances policy", "instancesDistribution needs instanceTypes")
			return NodeGroup{}, false
		}
		if len(dist.InstanceTypes) > maxMixedInstanceTypes {
			c.fail(path+".instancesDistribution.instanceTypes", "", "mixed node groups take 1 to %d instance types, got %d", maxMixedInstanceTypes, len(dist.InstanceTypes))
		}
		types, typesPath = dist.InstanceTypes, path+".instancesDistribution.instanceTypes"
	} else if n.InstanceType == "mixed" {
		c.fail(path+".instanceType", "add instancesDistribution.instanceTypes", `instanceType "mixed" needs instancesDistribution`)
		return NodeGroup{}, false
	}
	g, ok := c.common(&n.nodeGroupBase, path, types, typesPath, selfManagedGroup)
	g.Taints = c.taints(n.Taints, path+".taints", taintListOrMap)
	g.OnDemandPercent = 100
	// The ASG defaults: on-demand "prioritized" (the overrides' order),
	// spot "lowest-price" (Amazon EC2 Auto Scaling API reference,
	// InstancesDistribution).
	g.OnDemandStrategy = cloud.Prioritized
	g.SpotStrategy = cloud.LowestPrice
	if dist != nil {
		g.OnDemandPercent = 100
		if v := dist.OnDemandPercentageAboveBaseCapacity; v != nil {
			if *v < 0 || *v > 100 {
				c.fail(path+".instancesDistribution.onDemandPercentageAboveBaseCapacity", "", "must be between 0 and 100, got %d", *v)
			}
			g.OnDemandPercent = *v
		}
		if v := dist.OnDemandBaseCapacity; v != nil {
			if *v < 0 {
				c.fail(path+".instancesDistribution.onDemandBaseCapacity", "", "must not be negative, got %d", *v)
			}
			g.OnDemandBase = *v
		}
		if v := dist.SpotAllocationStrategy; v != nil {
			switch *v {
			case "lowest-price":
				g.SpotStrategy = cloud.LowestPrice
			case "capacity-optimized", "capacity-optimized-prioritized":
				g.SpotStrategy = cloud.CapacityOptimized
			case "price-capacity-optimized":
				g.SpotStrategy = cloud.PriceCapacityOptimized
			default:
				c.fail(path+".instancesDistribution.spotAllocationStrategy", "use lowest-price, capacity-optimized, capacity-optimized-prioritized or price-capacity-optimized", "unknown spot allocation strategy %q", *v)
			}
		}
		if dist.SpotInstancePools != nil {
			c.warn(path+".instancesDistribution.spotInstancePools", "spotInstancePools is not modelled: lowest-price tries every pool in price order")
		}
		if dist.MaxPrice != nil {
			c.warn(path+".instancesDistribution.maxPrice", "maxPrice is not modelled: spot is bought at the market price")
		}
		g.CapacityRebalance = dist.CapacityRebalance
	}
	if !ok || len(c.errs) > nerr {
		return g, false
	}
	cluster := c.cfg.Metadata.Name
	g.Tags = c.userTags(n.Tags)
	g.Tags["kubernetes.io/cluster/"+cluster] = "owned"
	if n.IAM != nil && n.IAM.WithAddonPolicies != nil && n.IAM.WithAddonPolicies.AutoScaler != nil && *n.IAM.WithAddonPolicies.AutoScaler {
		// eksctl tags the ASG for auto-discovery (pkg/cfn/builder/nodegroup.go).
		g.Tags[TagEnabled] = "true"
		g.Tags["k8s.io/cluster-autoscaler/"+cluster] = "owned"
	}
	propagate := n.PropagateASGTags != nil && *n.PropagateASGTags
	generated := map[string]bool{}
	if propagate {
		addCATags(g.Tags, g.Labels, g.Taints)
		for _, t := range g.Taints {
			generated[TagPrefixTaint+t.Key] = true
		}
	}
	it, _ := c.env.Catalog.Lookup(g.InstanceTypes[0])
	tpl, warns := BuildTemplate(it, c.env.Region, g.Zones, g.Tags, nil, nil)
	for _, w := range warns {
		if !generated[w.Tag] {
			c.warnc(w.Code, "", path+".tags", "%s", w.Msg)
		}
	}
	g.Template = tpl
	if g.MinSize == 0 {
		// What the Cluster Autoscaler cannot see while the group is empty.
		var missing []string
		for _, k := range slices.Sorted(maps.Keys(g.Labels)) {
			if _, ok := tpl.Labels[k]; !ok && k != LabelEksctlCluster && k != LabelEksctlNodeGroup {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			c.warnc(CodeZeroLabels, "", path+".labels", "while the group is empty the Cluster Autoscaler sees only its ASG tags, which lack the labels %s: pods that select them cannot scale it up from zero; set propagateASGTags: true or add %s<key> tags",
				strings.Join(missing, ", "), TagPrefixLabel)
		}
		var lost []string
		for _, t := range g.Taints {
			if !hasTaint(tpl.Taints, t) {
				lost = append(lost, t.Key)
			}
		}
		if len(lost) > 0 {
			c.warnc(CodeZeroTaints, "", path+".taints", "while the group is empty the Cluster Autoscaler does not know the taints %s (taint tags need the value <value>:<Effect>, which eksctl does not write): it may scale this group up for pods that do not tolerate them",
				strings.Join(lost, ", "))
		}
	}
	return g, true
}

// userTags merges the cluster's metadata.tags under the group's own (eksctl
// gives node groups the cluster's tags unless they set the key).
func (c *compiler) userTags(own map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range c.cfg.Metadata.Tags {
		out[k] = v
	}
	for k, v := range own {
		out[k] = v
	}
	return out
}

// addCATags adds the tags eksctl's propagateASGTags writes
// (GenerateClusterAutoscalerTags): one label tag per label and one taint
// tag per taint, whose value is the taint's value only.
func addCATags(tags, labels map[string]string, taints []Taint) {
	for k, v := range labels {
		tags[TagPrefixLabel+k] = v
	}
	for _, t := range taints {
		tags[TagPrefixTaint+t.Key] = t.Value
	}
}

func hasTaint(ts []Taint, t Taint) bool {
	for _, have := range ts {
		if have == t {
			return true
		}
	}
	return false
}

// amiType is the EKS AMI type of eksctl's default AMI family (AL2023) for
// the instance type.
func amiType(it *catalog.InstanceType) string {
	switch {
	case it.GPU > 0:
		return managedGroupAMIPrefix + "x86_64_NVIDIA"
	case it.Arch == catalog.ArchARM64:
		return managedGroupAMIPrefix + "ARM_64_STANDARD"
	}
	return managedGroupAMIPrefix + "x86_64_STANDARD"
}

// GroupNames lists the groups' names, sorted, for messages.
func GroupNames(groups []NodeGroup) []string {
	out := make([]string, len(groups))
	for i := range groups {
		out[i] = groups[i].Name
	}
	sort.Strings(out)
	return out
}
