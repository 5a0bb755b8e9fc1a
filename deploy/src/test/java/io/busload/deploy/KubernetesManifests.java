package io.busload.deploy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBuilder;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * deploy/kubernetes read as a cluster's API server would: every document into the typed object of its kind, and
 * any field that object does not have is an error naming it. fabric8's model keeps unknown fields in an
 * "additional properties" map instead of refusing them, so that catch-all is taken off every model class here;
 * a misspelt field then fails as Jackson's FAIL_ON_UNKNOWN_PROPERTIES says.
 */
final class KubernetesManifests {
  /** The kinds deploy/kubernetes uses; any other kind is refused, so a new one gets a typed check too. */
  static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
      "v1/Namespace", Namespace.class,
      "v1/Service", Service.class,
      "apps/v1/StatefulSet", StatefulSet.class,
      "apps/v1/Deployment", Deployment.class,
      "apps/v1/DaemonSet", DaemonSet.class,
      "networking.k8s.io/v1/NetworkPolicy", NetworkPolicy.class);

  static final String KUSTOMIZATION = "kustomization.yaml";

  private static final ObjectMapper STRICT = strict();

  private KubernetesManifests() {}

  /** One parsed document: the file it came from and the typed object. */
  record Manifest(Path file, HasMetadata object) {}

  /** deploy/kubernetes, from the deploy module's directory where Surefire runs. */
  static Path root() {
    Path root = Path.of("kubernetes").toAbsolutePath();
    if (!Files.isDirectory(root)) {
      throw new IllegalStateException("no deploy/kubernetes at " + root);
    }
    return root;
  }

  /** Every YAML file under {@code dir} but the kustomizations, in name order. */
  static List<Path> manifestFiles(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(f -> f.toString().endsWith(".yaml"))
          .filter(f -> !f.getFileName().toString().equals(KUSTOMIZATION)).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every document of {@code file}, typed; throws naming the file and the field that has no place in its kind. */
  static List<Manifest> parse(Path file) {
    try {
      return parse(file, Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<Manifest> parse(Path file, String yaml) {
    List<Manifest> parsed = new ArrayList<>();
    try (var documents = STRICT.readerFor(JsonNode.class).<JsonNode>readValues(new YAMLFactory().createParser(yaml))) {
      while (documents.hasNext()) {
        JsonNode document = documents.next();
        if (document == null || document.isEmpty()) {
          continue;
        }
        String kind = document.path("apiVersion").asText() + "/" + document.path("kind").asText();
        Class<? extends HasMetadata> type = KINDS.get(kind);
        if (type == null) {
          throw new IllegalArgumentException(file + ": no typed model for " + kind
              + " (known: " + KINDS.keySet() + ")");
        }
        try {
          parsed.add(new Manifest(file, STRICT.treeToValue(document, type)));
        } catch (JsonProcessingException e) {
          throw new IllegalArgumentException(file + ": " + kind + ": " + e.getOriginalMessage(), e);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": not YAML", e);
    }
    return parsed;
  }

  /** The fields of a kustomization that {@link #render} applies; any other is refused rather than left out. */
  static final Set<String> RENDERED_FIELDS = Set.of("apiVersion", "kind", "namespace", "labels", "resources", "images");

  /**
   * What {@code kubectl kustomize dir} gives for a base of plain files (kubectl is not installed here): every
   * resource, typed, with the kustomization's namespace, its labels on each object's metadata (Kustomize's
   * {@code labels} without {@code includeSelectors}) and its {@code images} substituted in every container and init
   * container. A kustomization field it does not apply (a patch, a generator, a nested base) is an error naming it.
   */
  static List<HasMetadata> render(Path dir) {
    JsonNode kustomization = kustomization(dir);
    kustomization.fieldNames().forEachRemaining(field -> {
      if (!RENDERED_FIELDS.contains(field)) {
        throw new IllegalArgumentException(dir.resolve(KUSTOMIZATION) + ": " + field + " is not rendered here (only "
            + RENDERED_FIELDS + ")");
      }
    });
    Map<String, String> labels = new java.util.TreeMap<>();
    kustomization.path("labels").forEach(entry -> entry.path("pairs").properties()
        .forEach(pair -> labels.put(pair.getKey(), pair.getValue().asText())));
    Map<String, String> images = new java.util.HashMap<>();
    kustomization.path("images").forEach(image -> images.put(image.path("name").asText(),
        image.path("newName").asText(image.path("name").asText())
            + (image.has("newTag") ? ":" + image.path("newTag").asText() : "")));
    String namespace = kustomization.path("namespace").asText(null);
    List<HasMetadata> rendered = new ArrayList<>();
    for (JsonNode resource : kustomization.path("resources")) {
      for (Manifest manifest : parse(dir.resolve(resource.asText()))) {
        HasMetadata object = manifest.object();
        if (namespace != null && !(object instanceof Namespace)) {
          object.getMetadata().setNamespace(namespace);
        }
        Map<String, String> merged = new java.util.TreeMap<>(labels);
        if (object.getMetadata().getLabels() != null) {
          merged.putAll(object.getMetadata().getLabels());
        }
        object.getMetadata().setLabels(merged);
        PodSpec pod = switch (object) {
          case StatefulSet set -> set.getSpec().getTemplate().getSpec();
          case Deployment deployment -> deployment.getSpec().getTemplate().getSpec();
          case DaemonSet daemons -> daemons.getSpec().getTemplate().getSpec();
          default -> null;
        };
        if (pod != null) {
          Stream.concat(pod.getContainers().stream(), pod.getInitContainers().stream())
              .forEach(c -> c.setImage(images.getOrDefault(c.getImage(), c.getImage())));
        }
        rendered.add(object);
      }
    }
    return rendered;
  }

  /** A kustomization file as a tree: its format belongs to Kustomize, which has no model here. */
  static JsonNode kustomization(Path dir) {
    try {
      return STRICT.readTree(dir.resolve(KUSTOMIZATION).toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ObjectMapper strict() {
    SimpleModule noCatchAll = new SimpleModule("no-additional-properties");
    noCatchAll.setDeserializerModifier(new BeanDeserializerModifier() {
      @Override
      public BeanDeserializerBuilder updateBuilder(DeserializationConfig config, BeanDescription bean,
          BeanDeserializerBuilder builder) {
        if (bean.getBeanClass().getName().startsWith("io.fabric8.")) {
          builder.setAnySetter(null);
        }
        return builder;
      }
    });
    return YAMLMapper.builder()
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .addModule(noCatchAll)
        .build();
  }
}
