package io.busload.coordinator.api;

import static io.busload.coordinator.api.Replies.json;

import io.busload.protocol.Protocol;

/**
 * {@code GET /api/version}: what a script or an operator checks before and after an upgrade (docs/upgrading.md), the
 * coordinator's release, the wire schema versions it reads, and the REST API's version. Reads need no token, like
 * every read.
 */
public record VersionResource() implements ApiResource {
  /**
   * @param coordinatorVersion the coordinator's release (its jar's Implementation-Version; "dev" from classes)
   * @param schemaVersion the wire schema this coordinator writes, and the newest it reads
   * @param oldestSchemaVersion the oldest wire schema it reads: agents speaking it or newer, up to schemaVersion, are
   *     accepted
   * @param restApiVersion the REST API's version, also in every answer's {@value RestApi#VERSION_HEADER} header
   */
  public record Version(String coordinatorVersion, int schemaVersion, int oldestSchemaVersion, int restApiVersion) {}

  public static Version now() {
    return new Version(Protocol.releaseOf(VersionResource.class), Protocol.SCHEMA_VERSION,
        Protocol.OLDEST_SCHEMA_VERSION, RestApi.VERSION);
  }

  @Override
  public void mount(Mounts api) {
    api.at("/api/version").get("/").handler(ctx -> json(ctx.response(), 200, now()));
  }
}
