package catalog

import _ "embed"

// Embedded copies of the shared EC2 snapshot; see data/README.md.
var (
	//go:embed data/ec2-instance-types.csv
	instanceTypesCSV []byte

	//go:embed data/ec2-od-prices.csv
	onDemandPricesCSV []byte

	//go:embed data/ec2-spot-advisor-regions.csv
	spotAdvisorCSV []byte

	//go:embed data/ec2-instance-labels.csv
	instanceLabelsCSV []byte
)

// ProvenanceMarkdown is data/PROVENANCE.md verbatim: the sources, commits,
// dates, column definitions and caveats of the embedded data.
//
//go:embed data/PROVENANCE.md
var ProvenanceMarkdown string
