# syntax=docker/dockerfile:1
# Ponderosa: a Lichess bot with its own engine, as a static binary on distroless.
#   docker build -t ponderosa .
#   docker run --rm --env-file .env -v ponderosa-pgn:/var/lib/ponderosa -v ponderosa-data:/data ponderosa
# No token is baked in: pass LICHESS_TOKEN at run time (--env-file or a secret).

# Base images by tag, until pinned by digest. NOT YET PINNED: the digests could
# not be looked up or verified where this file was last edited (no registry
# access), and an unverified digest would be worse than none. To pin, resolve
# each tag once and either edit the two image lines or pass build arguments:
#   docker buildx imagetools inspect golang:1.26-bookworm     # "Digest: sha256:…"
#   docker buildx imagetools inspect gcr.io/distroless/static-debian12:nonroot
#   docker build --build-arg GO_IMAGE=golang:1.26-bookworm@sha256:<digest> \
#     --build-arg RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot@sha256:<digest> .
# .dockerignore keeps .env (the token) and .git out of the build context.
ARG GO_IMAGE=golang:1.26-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN deploy/build.sh /out/ponderosa "${VERSION}" && /out/ponderosa version && mkdir -p /out/state /out/data

# distroless/static has CA certificates, time zone data and a nonroot user, and nothing else.
FROM ${RUNTIME_IMAGE}
ARG VERSION=dev
LABEL org.opencontainers.image.title="ponderosa" \
      org.opencontainers.image.description="Lichess bot service with its own chess engine" \
      org.opencontainers.image.source="https://github.com/ponderosa-chess/ponderosa" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="MIT"
COPY --from=build /out/ponderosa /usr/local/bin/ponderosa
# The PGN directory must belong to the nonroot user (65532) so a fresh named volume does too.
COPY --from=build --chown=65532:65532 /out/state /var/lib/ponderosa
# The bot's memory across restarts (ponderosa.db, SQLite): a volume of its own.
COPY --from=build --chown=65532:65532 /out/data /data
ENV PONDEROSA_PGN_DIR=/var/lib/ponderosa \
    PONDEROSA_DATA_DIR=/data \
    PONDEROSA_STATUS_ADDR=0.0.0.0:8080 \
    PONDEROSA_LOG_FORMAT=json
VOLUME ["/var/lib/ponderosa", "/data"]
EXPOSE 8080
USER nonroot:nonroot
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["/usr/local/bin/ponderosa", "healthcheck", "--addr", "127.0.0.1:8080"]
ENTRYPOINT ["/usr/local/bin/ponderosa"]
CMD ["bot"]
