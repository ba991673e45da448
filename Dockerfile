# A small image of sim for running sweeps on Kubernetes (docs/sweep.md):
# a static binary (CGO_ENABLED=0) on distroless's static base, run as its
# non-root user. Build: docker build -t REGISTRY/sim:TAG --build-arg VERSION=TAG .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# cmd/sim's TestDockerfileBuild runs this line (with -o to a temporary
# file): keep the build on one RUN line starting with CGO_ENABLED=0.
RUN CGO_ENABLED=0 GOOS=linux go build -buildvcs=false -ldflags "-s -w -X main.version=${VERSION}" -o /out/sim ./cmd/sim

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/sim /sim
USER 65532:65532
ENTRYPOINT ["/sim"]
