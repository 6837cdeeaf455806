# syntax=docker/dockerfile:1
# The SpiralBench manager image for users: the static manager binary on distroless
# static:nonroot. Build and push from the repository root (needs Docker/BuildKit, not
# available on the development machines, where hack/build-images.sh builds the same layout):
#
#   docker build -f images/manager.Dockerfile -t ghcr.io/spiralbench/manager:v0.1.0 .
#   docker push ghcr.io/spiralbench/manager:v0.1.0
ARG GO_VERSION=1.26.8

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-bookworm AS build
ARG TARGETOS=linux
ARG TARGETARCH=amd64
WORKDIR /src
ENV GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags "-s -w" -o /out/manager ./cmd/manager

# passwd/group with nonroot (65532), CA certificates, /tmp: what hack/images -nonroot adds.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/manager /manager
USER 65532:65532
ENTRYPOINT ["/manager"]
