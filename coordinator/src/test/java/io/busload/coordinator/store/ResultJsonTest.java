package io.busload.coordinator.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.protocol.JsonCodec;
import io.busload.protocol.KernelResult;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stored forms of result_json: every tag ever released still reads, and the newest packs results smaller. */
class ResultJsonTest {
  /** Real results with the sampling block: an H100's interconnect suite (not the result dictionary 2 was made of). */
  private static final Path H100 = Path.of("../docs/results/2026-11-24-h100-interconnect/interconnect-cuda0.json");

  private static byte[] resource(String name) throws Exception {
    try (InputStream in = ResultJsonTest.class.getResourceAsStream(name)) {
      return in.readAllBytes();
    }
  }

  @Test
  void tag1_packedByAnotherZlibWithDictionary1_stillReads() throws Exception {
    // Made once by Python's zlib (raw DEFLATE, level 1, zdict = dictionary 1): fails if dictionary 1 ever changes.
    byte[] stored = resource("packed-tag-1.bin");

    assertThat(stored[0]).isEqualTo((byte) 1);
    assertThat(ResultJson.bytes(stored)).isEqualTo(resource("packed-tag-1.json"));
  }

  @Test
  void pack_writesTag2_andBothTagsComeBackByteForByte() throws Exception {
    for (KernelResult r : List.of(JsonCodec.fromJson(Files.readAllBytes(H100), KernelResult[].class))) {
      byte[] json = JsonCodec.toJson(r);
      byte[] two = ResultJson.pack(json);
      byte[] one = ResultJson.pack(json, (byte) 1);

      assertThat(two[0]).isEqualTo((byte) 2);
      assertThat(ResultJson.bytes(two)).isEqualTo(json);
      assertThat(ResultJson.bytes(one)).isEqualTo(json);
    }
  }

  @Test
  void tag2_resultsWithSampling_packSmallerThanUnderTag1() throws Exception {
    long one = 0;
    long two = 0;
    List<KernelResult> results = List.of(JsonCodec.fromJson(Files.readAllBytes(H100), KernelResult[].class)).stream()
        .filter(r -> r.sampling() != null).toList(); // the skipped peer cases were never timed
    assertThat(results).hasSizeGreaterThan(50);
    for (KernelResult r : results) {
      byte[] json = JsonCodec.toJson(r);
      int underOne = ResultJson.pack(json, (byte) 1).length;
      int underTwo = ResultJson.pack(json).length;
      assertThat(underTwo).as("%s %s", r.kernel(), r.params()).isLessThan(underOne);
      one += underOne;
      two += underTwo;
    }
    System.out.printf("result_json of %d H100 interconnect results: %.0f bytes packed under tag 1, %.0f under tag 2%n",
        results.size(), (double) one / results.size(), (double) two / results.size());
  }
}
