package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// zoneLetters are the availability-zone letters of each region with Spot
// Advisor data: every letter an account can see. AWS maps the letters to
// physical zones independently for each account, and in the older regions
// not every account sees every letter (us-east-1e, us-west-1a,
// ap-northeast-1b are closed to newer accounts), so the list is the union.
// Counts as on AWS's Regions and Zones page (2025): six zones in us-east-1,
// four in us-west-2, ap-northeast-1 and ap-northeast-2, three elsewhere;
// ca-central-1 has no c zone (its third zone is ca-central-1d).
var zoneLetters = map[string]string{
	"af-south-1":     "abc",
	"ap-east-1":      "abc",
	"ap-east-2":      "abc",
	"ap-northeast-1": "abcd",
	"ap-northeast-2": "abcd",
	"ap-northeast-3": "abc",
	"ap-south-1":     "abc",
	"ap-south-2":     "abc",
	"ap-southeast-1": "abc",
	"ap-southeast-2": "abc",
	"ap-southeast-3": "abc",
	"ap-southeast-4": "abc",
	"ap-southeast-5": "abc",
	"ap-southeast-7": "abc",
	"ca-central-1":   "abd",
	"ca-west-1":      "abc",
	"eu-central-1":   "abc",
	"eu-central-2":   "abc",
	"eu-north-1":     "abc",
	"eu-south-1":     "abc",
	"eu-south-2":     "abc",
	"eu-west-1":      "abc",
	"eu-west-2":      "abc",
	"eu-west-3":      "abc",
	"il-central-1":   "abc",
	"me-central-1":   "abc",
	"me-south-1":     "abc",
	"mx-central-1":   "abc",
	"sa-east-1":      "abc",
	"us-east-1":      "abcdef",
	"us-east-2":      "abc",
	"us-west-1":      "abc",
	"us-west-2":      "abcd",
}

// Zones returns the availability zones of region (e.g. eu-west-2a,
// eu-west-2b, eu-west-2c), or nil for a region this package does not know.
// Local Zones and Wavelength Zones (us-east-1-bos-1a) are not included.
func Zones(region string) []string {
	letters, ok := zoneLetters[region]
	if !ok {
		return nil
	}
	out := make([]string, len(letters))
	for i := range letters {
		out[i] = region + letters[i:i+1]
	}
	return out
}

// DefaultZones returns the first three zones of region (us-east-1a,
// us-east-1b, us-east-1c; ca-central-1a, ca-central-1b, ca-central-1d), or
// nil for a region this package does not know.
func DefaultZones(region string) []string {
	z := Zones(region)
	return z[:min(3, len(z))]
}

// CheckZone says what is wrong with zone as a zone of region, or "" when it
// is one: a zone of another region, or a letter the region does not have.
func CheckZone(region, zone string) string {
	zones := Zones(region)
	if slices.Contains(zones, zone) {
		return ""
	}
	if zones == nil {
		return fmt.Sprintf("%s is not a region with EC2 data", region)
	}
	if r := RegionOf(zone); r != "" {
		return fmt.Sprintf("%s is a zone of %s, not of %s (whose zones are %s)", zone, r, region, strings.Join(zones, ", "))
	}
	return fmt.Sprintf("%s is not a zone of %s (its zones are %s)", zone, region, strings.Join(zones, ", "))
}

// RegionOf returns the region zone belongs to (eu-west-2 for eu-west-2a),
// or "" when it is no zone of a region this package knows.
func RegionOf(zone string) string {
	if len(zone) < 2 {
		return ""
	}
	r := zone[:len(zone)-1]
	if slices.Contains(Zones(r), zone) {
		return r
	}
	return ""
}
