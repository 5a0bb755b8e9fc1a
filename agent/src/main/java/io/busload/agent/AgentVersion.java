package io.busload.agent;

/** The version results carry: the jar manifest's Implementation-Version, or "dev" when run from classes. */
public final class AgentVersion {
  private AgentVersion() {}

  public static String get() {
    String version = AgentVersion.class.getPackage().getImplementationVersion();
    return version == null || version.isBlank() ? "dev" : version;
  }
}
