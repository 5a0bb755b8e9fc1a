package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.vaadin.flow.router.Route;
import io.busload.coordinator.CoordinatorSettings;
import io.busload.coordinator.api.HealthResource;
import io.busload.dashboard.security.ui.LoginView;
import io.busload.deploy.KubernetesManifests.Manifest;
import io.busload.protocol.bridge.BridgeClient;
import io.busload.protocol.cluster.FleetTls;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * deploy/kubernetes checked without a cluster: every manifest parses into fabric8's typed Kubernetes objects with
 * unknown fields refused, and what the manifests say agrees with what the programs do: the ports and directories
 * the coordinator resolves from the manifest's own environment, the probe paths its REST API serves
 * (HealthTest calls them), the file names a fleet certificate directory holds, and the NetworkPolicy's rules.
 */
class KubernetesManifestsTest {
  private static final Path ROOT = KubernetesManifests.root();
  private static final Path BASE = ROOT.resolve("base");
  private static final String GPU = "nvidia.com/gpu";

  private final List<Manifest> base = KubernetesManifests.manifestFiles(BASE).stream()
      .flatMap(f -> KubernetesManifests.parse(f).stream()).toList();

  @Test
  void everyManifest_parsesIntoTypedObjects_withNoUnknownField() {
    List<Path> files = KubernetesManifests.manifestFiles(ROOT);

    List<Manifest> all = files.stream().flatMap(f -> KubernetesManifests.parse(f).stream()).toList();

    assertThat(files).extracting(f -> ROOT.relativize(f).toString()).contains("base/coordinator.yaml",
        "base/agent.yaml", "base/dashboard.yaml", "base/network-policy.yaml",
        "external-postgres/coordinator-database.yaml");
    assertThat(all).extracting(m -> m.object().getKind())
        .contains("StatefulSet", "DaemonSet", "Deployment", "Service", "NetworkPolicy");
  }

  @Test
  void parse_misspeltField_failsNamingIt() {
    String yaml = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: x}
        spec:
          template:
            spec:
              containers:
                - name: x
                  image: x
                  imagePullPolicyy: Always
        """;

    assertThatThrownBy(() -> KubernetesManifests.parse(Path.of("typo.yaml"), yaml))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("imagePullPolicyy");
  }

  @Test
  void parse_kindWithoutModel_isRefused() {
    String yaml = "apiVersion: postgresql.cnpg.io/v1\nkind: Cluster\nmetadata: {name: db}\n";

    assertThatThrownBy(() -> KubernetesManifests.parse(Path.of("cnpg.yaml"), yaml))
        .hasMessageContaining("no typed model for postgresql.cnpg.io/v1/Cluster");
  }

  @Test
  void render_base_substitutesImagesSetsNamespaceAndLabels() {
    List<HasMetadata> rendered = KubernetesManifests.render(BASE);

    List<String> images = rendered.stream().map(KubernetesManifestsTest::podSpec).filter(java.util.Objects::nonNull)
        .flatMap(pod -> java.util.stream.Stream.concat(pod.getContainers().stream(),
            pod.getInitContainers().stream())).map(Container::getImage).distinct().sorted().toList();
    assertThat(images).containsExactly("localhost/busload/agent:0.1.0-SNAPSHOT",
        "localhost/busload/coordinator:0.1.0-SNAPSHOT", "localhost/busload/dashboard:0.1.0-SNAPSHOT");
    assertThat(rendered).filteredOn(o -> !"Namespace".equals(o.getKind()))
        .allSatisfy(o -> assertThat(o.getMetadata().getNamespace()).isEqualTo("busload"));
    assertThat(rendered).allSatisfy(o -> assertThat(o.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/part-of", "busload"));
  }

  @Test
  void render_kustomizationWithPatches_isRefusedNamingTheField() {
    assertThatThrownBy(() -> KubernetesManifests.render(ROOT.resolve("external-postgres")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("patches is not rendered here");
  }

  @Test
  void kustomizations_nameEveryManifestOfTheirFolder_andEveryImageUsed() throws IOException {
    JsonNode kustomization = KubernetesManifests.kustomization(BASE);
    Set<String> listed = strings(kustomization.get("resources"));
    Set<String> present = KubernetesManifests.manifestFiles(BASE).stream().map(f -> f.getFileName().toString())
        .collect(Collectors.toCollection(TreeSet::new));
    Set<String> images = strings(kustomization.get("images"), "name");
    Set<String> used = base.stream().map(Manifest::object).map(KubernetesManifestsTest::podSpec)
        .filter(java.util.Objects::nonNull)
        .flatMap(p -> java.util.stream.Stream.concat(p.getContainers().stream(), p.getInitContainers().stream()))
        .map(Container::getImage).collect(Collectors.toCollection(TreeSet::new));

    assertThat(listed).isEqualTo(present);
    assertThat(images).isEqualTo(used);
    JsonNode overlay = KubernetesManifests.kustomization(ROOT.resolve("external-postgres"));
    for (JsonNode patch : overlay.get("patches")) {
      assertThat(ROOT.resolve("external-postgres").resolve(patch.get("path").asText())).isRegularFile();
    }
    assertThat(Files.isDirectory(ROOT.resolve("external-postgres").resolve(overlay.get("resources").get(0).asText())))
        .isTrue();
  }

  @Test
  void agent_isDaemonSetOnGpuNodes_holdingEveryGpuOfItsNode_withNoPortOpen() {
    DaemonSet agent = one(DaemonSet.class, "busload-agent");
    PodSpec pod = agent.getSpec().getTemplate().getSpec();
    Container container = container(pod, "agent");

    assertThat(pod.getNodeSelector()).containsEntry(GPU + ".present", "true");
    Quantity gpus = container.getResources().getLimits().get(GPU);
    assertThat(gpus).as("GPU limit").isNotNull();
    assertThat(container.getResources().getRequests().get(GPU)).isEqualTo(gpus);
    // The whole node: the count asked for is the count of the nodes selected.
    assertThat(pod.getNodeSelector()).containsEntry(GPU + ".count", gpus.getAmount());
    // No --device: the agent serves every GPU it sees, which is what the device plugin gave the pod.
    assertThat(container.getArgs()).containsExactly("agent");
    assertThat(pod.getTolerations()).anySatisfy(t -> assertThat(t.getKey()).isEqualTo(GPU));
    assertThat(container.getPorts()).isEmpty();
    EnvVar id = env(container, "BUSLOAD_AGENT_ID");
    assertThat(id.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName");
  }

  @Test
  void agent_reachesCoordinatorBridge_byItsStableName_onTheBridgePort() {
    StatefulSet coordinator = one(StatefulSet.class, "busload-coordinator");
    Container agent = container(one(DaemonSet.class, "busload-agent").getSpec().getTemplate().getSpec(), "agent");
    Service headless = one(Service.class, coordinator.getSpec().getServiceName());

    String bridge = env(agent, "BUSLOAD_BRIDGE").getValue();

    assertThat(bridge).isEqualTo(coordinator.getMetadata().getName() + "-0." + headless.getMetadata().getName()
        + ":" + BridgeClient.DEFAULT_PORT);
    assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(headless.getSpec().getPorts())
        .anySatisfy(p -> assertThat(p.getPort()).isEqualTo(BridgeClient.DEFAULT_PORT));
  }

  @Test
  void coordinator_portsAndDataVolume_matchWhatItResolvesFromTheManifestsEnvironment() {
    StatefulSet coordinator = one(StatefulSet.class, "busload-coordinator");
    Container container = container(coordinator.getSpec().getTemplate().getSpec(), "coordinator");

    CoordinatorSettings settings = CoordinatorSettings.resolve(null, null, null, environment(container), "/home/x");

    Map<String, Integer> ports = ports(container);
    assertThat(ports).containsEntry("rest", settings.httpPort()).containsEntry("bridge", settings.bridgePort())
        .containsEntry("hazelcast", settings.cluster().clusterPort())
        .containsEntry("eventbus", settings.cluster().eventBusPort());
    assertThat(settings.httpPort()).isEqualTo(CoordinatorSettings.DEFAULT_HTTP_PORT);
    assertThat(settings.restTls()).as("REST on the pod's address is HTTPS, so tokens never cross it in clear").isTrue();
    assertThat(settings.database().embedded()).isTrue();
    assertThat(mountPath(container, "data")).isEqualTo(settings.dataDir().toString());
    assertThat(coordinator.getSpec().getVolumeClaimTemplates()).extracting(c -> c.getMetadata().getName())
        .containsExactly("data");
    Service rest = one(Service.class, "busload-coordinator-rest");
    assertThat(rest.getSpec().getPorts()).singleElement()
        .satisfies(p -> assertThat(p.getPort()).isEqualTo(settings.httpPort()));
  }

  @Test
  void coordinatorProbes_pointAtTheRoutesItsRestApiServes() {
    Container container = container(one(StatefulSet.class, "busload-coordinator").getSpec().getTemplate().getSpec(),
        "coordinator");

    assertThat(path(container.getLivenessProbe())).isEqualTo(HealthResource.LIVENESS);
    assertThat(path(container.getStartupProbe())).isEqualTo(HealthResource.LIVENESS);
    assertThat(path(container.getReadinessProbe())).isEqualTo(HealthResource.READINESS);
    for (Probe probe : List.of(container.getLivenessProbe(), container.getReadinessProbe())) {
      assertThat(ports(container)).containsEntry(probe.getHttpGet().getPort().getStrVal(),
          CoordinatorSettings.DEFAULT_HTTP_PORT);
      assertThat(probe.getTimeoutSeconds()).isGreaterThan(3);
      assertThat(probe.getHttpGet().getScheme()).as("the REST API answers HTTPS only").isEqualTo("HTTPS");
    }
  }

  @Test
  void dashboard_isDeploymentWithService_probedOnItsLoginPage_onItsServerPort() throws IOException {
    Deployment dashboard = one(Deployment.class, "busload-dashboard");
    Container container = container(dashboard.getSpec().getTemplate().getSpec(), "dashboard");
    Properties application = new Properties();
    try (var in = Files.newBufferedReader(Path.of("../dashboard/src/main/resources/application.properties"))) {
      application.load(in);
    }
    int port = Integer.parseInt(application.getProperty("server.port"));

    String login = "/" + LoginView.class.getAnnotation(Route.class).value();

    for (Probe probe : List.of(container.getStartupProbe(), container.getLivenessProbe(),
        container.getReadinessProbe())) {
      assertThat(path(probe)).isEqualTo(login);
    }
    assertThat(ports(container)).containsEntry("http", port);
    Service service = one(Service.class, "busload-dashboard");
    assertThat(service.getSpec().getSelector())
        .isEqualTo(dashboard.getSpec().getTemplate().getMetadata().getLabels());
    assertThat(service.getSpec().getPorts()).singleElement().satisfies(p -> assertThat(p.getPort()).isEqualTo(port));
    assertThat(env(container, "BUSLOAD_COORDINATOR_URL").getValue())
        .isEqualTo("https://busload-coordinator-rest:" + CoordinatorSettings.DEFAULT_HTTP_PORT);
  }

  @Test
  void coordinatorAndDashboardCertificates_mountASecret_withTheFilesTheirTlsDirectoryHolds() {
    for (PodSpec pod : List.of(one(StatefulSet.class, "busload-coordinator").getSpec().getTemplate().getSpec(),
        one(Deployment.class, "busload-dashboard").getSpec().getTemplate().getSpec())) {
      Container container = pod.getContainers().getFirst();
      FleetTls tls = FleetTls.inDirectory(Path.of(env(container, "BUSLOAD_TLS_DIR").getValue()));

      Volume volume = volumeAt(pod, container, tls.keyStore().getParent().toString());

      assertThat(volume.getSecret()).as(container.getName() + "'s certificate volume").isNotNull();
      assertThat(volume.getSecret().getItems()).extracting(KeyToPath::getPath).containsExactlyInAnyOrder(
          tls.keyStore().getFileName().toString(), tls.trustStore().getFileName().toString(),
          tls.passwordFile().getFileName().toString());
      assertThat(List.of(tls.trustStore().getParent(), tls.passwordFile().getParent()))
          .containsOnly(tls.keyStore().getParent());
    }
  }

  @Test
  void agentCertificate_copiedFromTheFleetSecret_byNodeName_intoItsTlsDirectory() {
    PodSpec pod = one(DaemonSet.class, "busload-agent").getSpec().getTemplate().getSpec();
    Container agent = container(pod, "agent");
    FleetTls tls = FleetTls.inDirectory(Path.of(env(agent, "BUSLOAD_TLS_DIR").getValue()));
    Container init = pod.getInitContainers().getFirst();
    String script = String.join("\n", init.getCommand());

    Volume target = volumeAt(pod, agent, tls.keyStore().getParent().toString());

    assertThat(target.getEmptyDir()).isNotNull();
    assertThat(volumeAt(pod, init, tls.keyStore().getParent().toString())).isEqualTo(target);
    assertThat(script).contains("for f in " + tls.keyStore().getFileName() + " " + tls.trustStore().getFileName()
        + " " + tls.passwordFile().getFileName() + ";", "$NODE_NAME.$f");
    assertThat(env(init, "NODE_NAME").getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName");
    assertThat(pod.getVolumes()).anySatisfy(v -> assertThat(v.getSecret()).isNotNull()
        .satisfies(s -> assertThat(s.getSecretName()).isEqualTo("busload-agent-tls")));
  }

  @Test
  void everyContainer_requestsCpuAndMemory_andTheLongRunningOnesRunAsNonRoot() {
    for (Manifest manifest : base) {
      PodSpec pod = podSpec(manifest.object());
      if (pod == null) {
        continue;
      }
      assertThat(pod.getSecurityContext().getRunAsNonRoot()).as(manifest.object().getMetadata().getName()).isTrue();
      for (Container container : java.util.stream.Stream.concat(pod.getContainers().stream(),
          pod.getInitContainers().stream()).toList()) {
        assertThat(container.getResources().getRequests()).as(container.getName()).containsKeys("cpu", "memory");
        assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).as(container.getName()).isFalse();
      }
      for (Container container : pod.getContainers()) {
        assertThat(container.getSecurityContext().getRunAsUser()).as(container.getName()).isNull();
      }
    }
  }

  @Test
  void networkPolicy_deniesAllIngress_butAgentsToBridge_andDashboardToRestAndCluster() {
    NetworkPolicy deny = one(NetworkPolicy.class, "busload-default-deny");
    NetworkPolicy coordinator = one(NetworkPolicy.class, "busload-coordinator");

    assertThat(deny.getSpec().getPodSelector().getMatchLabels()).isNullOrEmpty();
    assertThat(deny.getSpec().getPolicyTypes()).containsExactly("Ingress");
    assertThat(deny.getSpec().getIngress()).isNullOrEmpty();
    assertThat(admitted(coordinator, "agent")).containsExactly(BridgeClient.DEFAULT_PORT);
    assertThat(admitted(coordinator, "dashboard")).contains(CoordinatorSettings.DEFAULT_HTTP_PORT, 5701,
        CoordinatorSettings.DEFAULT_EVENT_BUS_PORT).doesNotContain(BridgeClient.DEFAULT_PORT);
    // No policy selects the agents with a rule: they accept nothing.
    assertThat(base.stream().map(Manifest::object).filter(NetworkPolicy.class::isInstance)
        .map(NetworkPolicy.class::cast)
        .filter(p -> "agent".equals(p.getSpec().getPodSelector().getMatchLabels() == null ? null
            : p.getSpec().getPodSelector().getMatchLabels().get("app.kubernetes.io/component")))).isEmpty();
  }

  private static Set<Integer> admitted(NetworkPolicy policy, String component) {
    Set<Integer> ports = new TreeSet<>();
    for (NetworkPolicyIngressRule rule : policy.getSpec().getIngress()) {
      boolean from = rule.getFrom().stream().map(NetworkPolicyPeer::getPodSelector)
          .anyMatch(s -> s != null && component.equals(s.getMatchLabels().get("app.kubernetes.io/component")));
      if (from) {
        rule.getPorts().forEach(p -> ports.add(p.getPort().getIntVal()));
      }
    }
    return ports;
  }

  private <T extends HasMetadata> T one(Class<T> type, String name) {
    return base.stream().map(Manifest::object).filter(type::isInstance).map(type::cast)
        .filter(o -> name.equals(o.getMetadata().getName())).reduce((a, b) -> {
          throw new AssertionError("two " + type.getSimpleName() + " named " + name);
        }).orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " named " + name));
  }

  private static PodSpec podSpec(HasMetadata object) {
    return switch (object) {
      case StatefulSet s -> s.getSpec().getTemplate().getSpec();
      case Deployment d -> d.getSpec().getTemplate().getSpec();
      case DaemonSet d -> d.getSpec().getTemplate().getSpec();
      default -> null;
    };
  }

  private static Container container(PodSpec pod, String name) {
    return pod.getContainers().stream().filter(c -> name.equals(c.getName())).findFirst()
        .orElseThrow(() -> new AssertionError("no container " + name));
  }

  private static EnvVar env(Container container, String name) {
    return container.getEnv().stream().filter(e -> name.equals(e.getName())).findFirst()
        .orElseThrow(() -> new AssertionError(container.getName() + " sets no " + name));
  }

  /** The container's environment as the program sees it, with the pod's address standing for status.podIP. */
  private static Map<String, String> environment(Container container) {
    Map<String, String> env = new HashMap<>();
    for (EnvVar var : container.getEnv()) {
      env.put(var.getName(), var.getValue() != null ? var.getValue()
          : "status.podIP".equals(var.getValueFrom().getFieldRef().getFieldPath()) ? "10.244.1.7" : "x");
    }
    return env;
  }

  private static Map<String, Integer> ports(Container container) {
    return container.getPorts().stream().collect(Collectors.toMap(ContainerPort::getName,
        ContainerPort::getContainerPort));
  }

  private static String mountPath(Container container, String volume) {
    return container.getVolumeMounts().stream().filter(m -> volume.equals(m.getName())).map(VolumeMount::getMountPath)
        .findFirst().orElseThrow(() -> new AssertionError(container.getName() + " mounts no " + volume));
  }

  private static Volume volumeAt(PodSpec pod, Container container, String path) {
    String name = container.getVolumeMounts().stream().filter(m -> path.equals(m.getMountPath()))
        .map(VolumeMount::getName).findFirst()
        .orElseThrow(() -> new AssertionError(container.getName() + " mounts nothing at " + path));
    return pod.getVolumes().stream().filter(v -> name.equals(v.getName())).findFirst()
        .orElseThrow(() -> new AssertionError("no volume " + name));
  }

  private static String path(Probe probe) {
    assertThat(probe).isNotNull();
    return probe.getHttpGet().getPath();
  }

  private static Set<String> strings(JsonNode array) {
    return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static Set<String> strings(JsonNode array, String field) {
    return StreamSupport.stream(array.spliterator(), false).map(n -> n.get(field).asText())
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
