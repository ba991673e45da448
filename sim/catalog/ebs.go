package catalog

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"sync"
)

// EBS attachment limits of the AWS EBS CSI driver
// (github.com/kubernetes-sigs/aws-ebs-csi-driver, read at v1.64.0+4,
// commit 429e202e5897 of 2026-08-19): pkg/cloud/limits/volume_limits.go
// (GetVolumeLimits), its generated table volume_limits_table.go and
// pkg/driver/node.go (getVolumesLimit). See data/README.md for how
// data/ebs-attachment-limits.csv was extracted from that table.
const (
	// DefaultEBSAttachments is the driver's default for a Nitro type its
	// table does not list: a shared limit of 27 (the 28 shared attachment
	// slots of a Nitro instance minus its primary network interface).
	DefaultEBSAttachments = 27
	// XenEBSAttachments is the driver's limit for non-Nitro (Xen) types,
	// which it treats as dedicated (ENIs do not take EBS slots).
	XenEBSAttachments = 39
)

//go:embed data/ebs-attachment-limits.csv
var ebsAttachmentsCSV []byte

var ebsAttachmentsHeader = []string{"instance_type", "max_attachments", "limit_type"}

// EBSAttachments is one row of the EBS CSI driver's limit table.
type EBSAttachments struct {
	// Max is the type's maximum of EBS attachments: EC2
	// DescribeInstanceTypes EbsInfo.MaximumEbsAttachments, which for a
	// shared limit already leaves out the primary network interface and the
	// NVMe instance-store volumes (c5d.4xlarge, one NVMe disk: 26; m5.large:
	// 27; most bare-metal types 31), or 39 for Xen types.
	Max int
	// Dedicated is true when EBS volumes have slots of their own (EC2
	// AttachmentLimitType "dedicated": most 7th- and 8th-generation types,
	// 32 on their small sizes, up to 128; the driver also treats Xen types
	// and a list of metal types the API calls shared as dedicated); false
	// when they share the slots with network interfaces ("shared").
	Dedicated bool
}

var (
	ebsOnce  sync.Once
	ebsTable map[string]EBSAttachments
	ebsErr   error
)

// embeddedEBSAttachments parses data/ebs-attachment-limits.csv once.
func embeddedEBSAttachments() (map[string]EBSAttachments, error) {
	ebsOnce.Do(func() {
		ebsTable, ebsErr = ParseEBSAttachments(bytes.NewReader(ebsAttachmentsCSV))
		if ebsErr != nil {
			ebsErr = fmt.Errorf("catalog: embedded data: %w", ebsErr)
		}
	})
	return ebsTable, ebsErr
}

// ParseEBSAttachments reads an ebs-attachment-limits.csv table
// (instance_type,max_attachments,limit_type; limit_type "shared" or
// "dedicated") into instance type -> limits, rejecting duplicate rows.
func ParseEBSAttachments(r io.Reader) (map[string]EBSAttachments, error) {
	t, err := newCSVTable("ebs attachment limits", r, ebsAttachmentsHeader)
	if err != nil {
		return nil, err
	}
	out := map[string]EBSAttachments{}
	err = t.each(func(rec []string) error {
		if err := t.nonEmpty("instance_type", rec[0]); err != nil {
			return err
		}
		n, err := t.int("max_attachments", rec[1], 1, 1024)
		if err != nil {
			return err
		}
		var dedicated bool
		switch rec[2] {
		case "dedicated":
			dedicated = true
		case "shared":
		default:
			return t.errorf("limit_type: %q is neither \"shared\" nor \"dedicated\"", rec[2])
		}
		if _, dup := out[rec[0]]; dup {
			return t.errorf("duplicate row for %s", rec[0])
		}
		out[rec[0]] = EBSAttachments{Max: int(n), Dedicated: dedicated}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// applyEBS sets every type's EBS attachment limits from the table; a type
// the table lacks gets the driver's default (27, shared).
func applyEBS(types []*InstanceType, table map[string]EBSAttachments) {
	for _, it := range types {
		a, ok := table[it.Name]
		if !ok {
			a = EBSAttachments{Max: DefaultEBSAttachments}
		}
		it.EBS = a
	}
}

// DefaultEBSVolumeLimit is EBSVolumeLimit for a type the driver's table
// lacks (DefaultEBSAttachments shared slots, less the root volume): what a
// node of a type outside the catalogue can attach.
func DefaultEBSVolumeLimit() int {
	return (&InstanceType{EBS: EBSAttachments{Max: DefaultEBSAttachments}}).EBSVolumeLimit()
}

// EBSVolumeLimit is the number of EBS CSI volumes a node of this type can
// attach: the CSINode allocatable count the EBS CSI driver reports
// (getVolumesLimit), which the scheduler's NodeVolumeLimits filter
// enforces, for a node with the default options (no --volume-attach-limit,
// reserved attachments auto-detected), only its root volume among the
// block-device mappings and only its primary network interface attached:
//
//	limit = EBS.Max - 1 (the root volume)  [- (attached ENIs - 1) if shared]
//
// never below 1 (Kubernetes reads 0 as unlimited). EBS.Max is the EC2
// MaximumEbsAttachments, so a Nitro type with a shared limit loses a slot
// per NVMe instance-store volume and per network interface beyond the first
// (its 28 slots are shared by ENIs, NVMe instance stores and EBS volumes):
// m5.large 26, c5d.4xlarge (one NVMe disk) 25, m5d.24xlarge (four) 22;
// Xen types (t2, m4, c4, ...) 38; dedicated types keep theirs whatever the
// ENIs (m7i.large 31, m7i.48xlarge 127).
//
// Simplification: the VPC CNI attaches more ENIs as pods need IP addresses,
// and the driver (Kubernetes 1.34+ MutableCSINodeAllocatableCount, every 10
// s) then lowers a shared type's count by one per extra ENI: nodes observed
// on EKS report 25 or 26 on m5.large. This limit counts the primary ENI
// only, the most a shared-limit node can offer.
func (it *InstanceType) EBSVolumeLimit() int {
	return it.EBSVolumeLimitWithENIs(1)
}

// EBSVolumeLimitWithENIs is [InstanceType.EBSVolumeLimit] for a node with
// enis network interfaces attached (at least 1, the primary): a shared limit
// loses one slot per interface beyond the first, a dedicated one none.
func (it *InstanceType) EBSVolumeLimitWithENIs(enis int) int {
	limit := it.EBS.Max - 1 // the root volume
	if !it.EBS.Dedicated && enis > 1 {
		limit -= enis - 1
	}
	return max(limit, 1)
}
