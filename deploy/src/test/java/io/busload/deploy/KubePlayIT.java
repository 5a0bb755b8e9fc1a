package io.busload.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.busload.dashboard.security.UserFile;
import io.busload.testsupport.FleetCerts;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.HostAlias;
import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimVolumeSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;

/**
 * The coordinator and dashboard of {@code deploy/kubernetes/base}, rendered as Kustomize renders them, run by
 * {@code podman kube play} on the images {@code ./busload images} built. Podman 4.3 is not a cluster, so the test
 * supplies what a cluster would, and changes nothing else: the StatefulSet's pod (podman plays Pods, Deployments and
 * PersistentVolumeClaims only) with its volume claim as a podman volume; the Secrets as host directories (podman has
 * no Secret volumes); the pod's address where the manifests take it from {@code status.podIP}; and the Services'
 * names as host aliases of the coordinator's pod (podman has no Services); and no {@code containerPort}, which
 * podman 4.3 would publish on the host's port of the same number. Probes are checked by calling the
 * manifests' own probe routes from the test, since podman runs none but the liveness probe, through a curl the
 * images do not carry.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KubePlayIT {
  static final Path WORK = Path.of("target", "kube-play").toAbsolutePath();
  static final Path BASE = KubernetesManifests.root().resolve("base");

  final String run = "busload-kube-" + java.util.UUID.randomUUID().toString().substring(0, 8);
  final List<Path> played = new ArrayList<>();
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  Podman podman;
  Path dir;
  Path certs;
  String coordinatorIp;
  String dashboardIp;
  StatefulSet coordinator;
  Deployment dashboard;

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory(Files.createDirectories(WORK), "play-");
    podman = Podman.ready(dir);
    List<HasMetadata> rendered = KubernetesManifests.render(BASE);
    coordinator = only(rendered, StatefulSet.class);
    dashboard = only(rendered, Deployment.class);
    // The images the manifests name after rendering are the ones ./busload images built and podman loaded.
    assertThat(podman.image("coordinator")).isEqualTo(container(coordinator.getSpec().getTemplate().getSpec())
        .getImage());
    assertThat(podman.image("dashboard")).isEqualTo(container(dashboard.getSpec().getTemplate().getSpec())
        .getImage());
    String subnet = podman.network(run);
    coordinatorIp = subnet + ".20";
    dashboardIp = subnet + ".21";
    // The names deploy/kubernetes/README.md issues the coordinator's certificate to, and the address the test
    // reaches it at.
    certs = FleetCerts.issue(dir.resolve("certs"), "--coordinator", "busload-coordinator-0"
        + "@busload-coordinator-0.busload-coordinator@busload-coordinator-rest@" + coordinatorIp,
        "--dashboard", "busload-dashboard");
    Podman.ownByImageUser(certs);
  }

  @AfterAll
  void stop() throws Exception {
    if (podman == null) {
      return;
    }
    for (Path file : played.reversed()) {
      Files.writeString(dir.resolve(file.getFileName() + ".log"), podman.attempt("pod", "logs", "--tail", "200",
          podName(file)).output());
      podman.attempt("kube", "down", file.toString());
    }
    podman.attempt("volume", "rm", "--force", run + "-data");
    podman.attempt("network", "rm", "--force", run);
  }

  @Test
  void coordinatorAndDashboardManifests_underPodmanKubePlay_readyAndAnswering() throws Exception {
    Pod coordinatorPod = coordinatorPod();
    Path coordinatorFile = play(coordinatorPod, coordinatorIp);
    Container coordinatorContainer = container(coordinatorPod.getSpec());
    HttpClient https = ContainerFleetIT.fleetClient(certs.resolve("coordinator-busload-coordinator-0"));
    HttpResponse<String> ready = await("the coordinator's readiness probe", 240,
        () -> answered(https, coordinatorIp, coordinatorContainer, coordinatorContainer.getReadinessProbe()));
    // As the README hands the first admin token to the dashboard: read once from the coordinator's volume.
    String token = podman.run("exec", "busload-coordinator-0-coordinator", "cat",
        "/var/lib/busload/first-api-token").strip();
    Path tokenDir = Files.createDirectories(dir.resolve("dashboard-api-token"));
    Files.writeString(tokenDir.resolve("token"), token + "\n");
    Path usersDir = Files.createDirectories(dir.resolve("dashboard-users"));
    UserFile.loadOrCreate(usersDir.resolve("users.properties"),
        PasswordEncoderFactories.createDelegatingPasswordEncoder(), new PrintStream(OutputStream.nullOutputStream()));
    Podman.ownByImageUser(tokenDir);
    Podman.ownByImageUser(usersDir);

    Deployment dashboardDeployment = dashboardDeployment(tokenDir, usersDir);
    play(dashboardDeployment, dashboardIp);
    Container dashboardContainer = container(dashboardDeployment.getSpec().getTemplate().getSpec());
    HttpResponse<String> login = await("the dashboard's readiness probe", 240,
        () -> answered(http, dashboardIp, dashboardContainer, dashboardContainer.getReadinessProbe()));
    String readOnly = podman.run("inspect", "--format", "{{.HostConfig.ReadonlyRootfs}} {{.Config.User}}",
        "busload-coordinator-0-coordinator").strip();

    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
    assertThat(ready.body()).contains("\"database\":\"up\"").contains("\"eventBus\":\"up\"");
    assertThat(token).isNotBlank();
    assertThat(login.statusCode()).isEqualTo(200);
    assertThat(login.body()).contains("<html");
    assertThat(readOnly).as("read-only root, the image's user").isEqualTo("true 10001:10001");
    System.out.printf("podman kube play (%s): coordinator %s %s %s; dashboard %s %d; coordinator container: "
        + "read-only root and user %s%n", run, coordinatorContainer.getImage(),
        coordinatorContainer.getReadinessProbe().getHttpGet().getPath(), ready.body(), dashboardContainer.getImage(),
        login.statusCode(), readOnly.split(" ")[1]);
  }

  /**
   * The StatefulSet's one pod, as the StatefulSet controller makes it ({@code busload-coordinator-0}), its volume
   * claim a podman volume of this run.
   */
  private Pod coordinatorPod() {
    PodSpec spec = coordinator.getSpec().getTemplate().getSpec();
    coordinator.getSpec().getVolumeClaimTemplates().forEach(claim -> {
      Volume volume = new Volume();
      volume.setName(claim.getMetadata().getName());
      volume.setPersistentVolumeClaim(new PersistentVolumeClaimVolumeSource(run + "-" + claim.getMetadata().getName(),
          false));
      spec.getVolumes().add(volume);
    });
    clusterServices(spec, coordinatorIp, Map.of("busload-coordinator-tls",
        certs.resolve("coordinator-busload-coordinator-0")));
    Pod pod = new Pod();
    pod.setApiVersion("v1");
    pod.setKind("Pod");
    ObjectMeta meta = new ObjectMeta();
    meta.setName(coordinator.getMetadata().getName() + "-0");
    meta.setLabels(coordinator.getSpec().getTemplate().getMetadata().getLabels());
    pod.setMetadata(meta);
    pod.setSpec(spec);
    return pod;
  }

  private Deployment dashboardDeployment(Path tokenDir, Path usersDir) {
    clusterServices(dashboard.getSpec().getTemplate().getSpec(), dashboardIp, Map.of(
        "busload-dashboard-tls", certs.resolve("dashboard-busload-dashboard"),
        "busload-dashboard-api-token", tokenDir,
        "busload-dashboard-users", usersDir));
    return dashboard;
  }

  /**
   * What a cluster gives a pod and podman does not: each Secret volume as the host directory holding the same
   * files, {@code status.podIP} as the address the pod is played at, and the Services' names (the headless
   * Service's per-pod name and the REST Service) as host aliases of the coordinator's address. Podman 4.3 publishes
   * every {@code containerPort} on the host's own port of that number, which a cluster never does (two pods here
   * would both want 5701, as would anything else on the host): the ports go, and the probes that name one get its
   * number.
   */
  private void clusterServices(PodSpec spec, String podIp, Map<String, Path> secrets) {
    for (Volume volume : spec.getVolumes()) {
      if (volume.getSecret() != null) {
        Path files = secrets.get(volume.getSecret().getSecretName());
        assertThat(files).as("a directory for Secret " + volume.getSecret().getSecretName()).isNotNull();
        volume.setSecret(null);
        volume.setHostPath(new HostPathVolumeSource(files.toString(), "Directory"));
      }
    }
    for (Container c : spec.getContainers()) {
      Map<String, Integer> ports = c.getPorts().stream()
          .collect(java.util.stream.Collectors.toMap(ContainerPort::getName, ContainerPort::getContainerPort));
      for (Probe probe : java.util.Arrays.asList(c.getStartupProbe(), c.getLivenessProbe(), c.getReadinessProbe())) {
        if (probe != null && probe.getHttpGet() != null && probe.getHttpGet().getPort().getStrVal() != null) {
          probe.getHttpGet().setPort(new IntOrString(ports.get(probe.getHttpGet().getPort().getStrVal())));
        }
      }
      c.setPorts(List.of());
      for (EnvVar env : c.getEnv()) {
        if (env.getValueFrom() != null && env.getValueFrom().getFieldRef() != null
            && "status.podIP".equals(env.getValueFrom().getFieldRef().getFieldPath())) {
          env.setValueFrom(null);
          env.setValue(podIp);
        }
      }
    }
    spec.setHostAliases(List.of(new HostAlias(List.of("busload-coordinator-0.busload-coordinator",
        "busload-coordinator-rest"), coordinatorIp)));
  }

  /** {@code podman kube play} of {@code object} at {@code ip} on this run's network; returns the played file. */
  private Path play(HasMetadata object, String ip) throws Exception {
    Path file = dir.resolve(object.getMetadata().getName() + ".yaml");
    Files.writeString(file, YAML.writeValueAsString(object));
    played.add(file);
    podman.run("kube", "play", "--replace", "--network", run, "--ip", ip, file.toString());
    return file;
  }

  private String podName(Path file) {
    String name = file.getFileName().toString().replace(".yaml", "");
    return name.equals(dashboard.getMetadata().getName()) ? name + "-pod-0" : name;
  }

  /** The probe's route on the pod's address, its named port resolved from the container's ports. */
  private static HttpResponse<String> answered(HttpClient client, String ip, Container container, Probe probe)
      throws Exception {
    var get = probe.getHttpGet();
    int port = get.getPort().getIntVal() != null ? get.getPort().getIntVal() : container.getPorts().stream()
        .filter(p -> get.getPort().getStrVal().equals(p.getName())).map(ContainerPort::getContainerPort)
        .findFirst().orElseThrow();
    String scheme = get.getScheme() == null ? "http" : get.getScheme().toLowerCase(java.util.Locale.ROOT);
    HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(scheme + "://" + ip + ":" + port
        + get.getPath())).timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
    return response.statusCode() == 200 ? response : null;
  }

  private <T> T await(String what, int seconds, Callable<T> probe) throws Exception {
    return new Poll(Duration.ofSeconds(1), Exception.class, () -> "", this::podLogs).until(what, seconds, probe);
  }

  private String podLogs() throws java.io.IOException, InterruptedException {
    StringBuilder logs = new StringBuilder();
    for (Path file : played) {
      logs.append("\n--- ").append(podName(file)).append('\n')
          .append(podman.attempt("pod", "logs", "--tail", "60", podName(file)).output());
    }
    return logs.toString();
  }

  private static Container container(PodSpec spec) {
    assertThat(spec.getContainers()).hasSize(1);
    return spec.getContainers().getFirst();
  }

  private static <T extends HasMetadata> T only(List<HasMetadata> objects, Class<T> type) {
    List<T> found = objects.stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(found).as(type.getSimpleName()).hasSize(1);
    return found.getFirst();
  }

  private static final ObjectMapper YAML = YAMLMapper.builder()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .serializationInclusion(JsonInclude.Include.NON_EMPTY)
      .build();
}
