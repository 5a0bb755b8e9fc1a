package io.busload.kernels;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FatbinTest {

  @Test
  void bytes_builtByNvcc_startWithFatbinMagic() {
    byte[] bytes = Fatbin.bytes();
    // fatBinary header magic 0xBA55ED50, little-endian.
    assertThat(bytes).startsWith((byte) 0x50, (byte) 0xED, (byte) 0x55, (byte) 0xBA);
    assertThat(bytes.length).isGreaterThan(1000);
  }

  @Test
  void sha256_twice_sameLowercaseHex() {
    assertThat(Fatbin.sha256()).hasSize(64).matches("[0-9a-f]+").isEqualTo(Fatbin.sha256());
  }

  @Test
  void fatbin_entryPointName_isEmbedded() {
    String text = new String(Fatbin.bytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
    assertThat(text).contains(StridedCopy.ENTRY_POINT).contains("busload_typed_copy_f32x4").contains("busload_vector_copy_f32x4");
  }
}
