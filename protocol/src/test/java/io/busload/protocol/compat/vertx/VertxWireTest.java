package io.busload.protocol.compat.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The Vert.x implementation names and texts that {@link VertxWire} recognises refused frames by are still those of the
 * Vert.x on the class path. A Vert.x upgrade that renames them fails here, saying which; EventBusFuzzTest (coordinator)
 * then shows which kind of refused frame is no longer counted.
 */
class VertxWireTest {

  @Test
  void readerClasses_ofThisVertx_areStillThere() {
    for (String name : new String[] {VertxWire.MESSAGE_READER, VertxWire.FRAME_READER}) {
      assertThat(exists(name))
          .as("Vert.x changed: %s is gone; VertxWire (refused event-bus frames) must name where it went", name)
          .isTrue();
    }
  }

  @Test
  void refusalTexts_areStillInTheMessageReader() throws IOException {
    String reader = classText(VertxWire.MESSAGE_READER);
    for (String text : new String[] {VertxWire.WIRE_VERSION_TEXT, VertxWire.UNKNOWN_CODEC_TEXT}) {
      assertThat(reader)
          .as("Vert.x changed: %s no longer says \"%s\"; VertxWire must follow its new words", VertxWire.MESSAGE_READER,
              text)
          .contains(text);
    }
  }

  @Test
  void readingFrame_onlyForAFailureThrownByTheFrameReader() {
    IllegalStateException fromReader = new IllegalStateException("bad length");
    fromReader.setStackTrace(new StackTraceElement[] {
        new StackTraceElement(VertxWire.FRAME_READER, "handle", "InboundConnection.java", 1)});

    assertThat(VertxWire.readingFrame(fromReader)).isTrue();
    assertThat(VertxWire.readingFrame(new IllegalStateException("elsewhere"))).isFalse();
  }

  private static boolean exists(String name) {
    try {
      Class.forName(name, false, VertxWireTest.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /** The class file's bytes as Latin-1: its constant pool holds string literals as they are written. */
  private static String classText(String name) throws IOException {
    try (InputStream in = VertxWireTest.class.getClassLoader()
        .getResourceAsStream(name.replace('.', '/') + ".class")) {
      assertThat(in).as("Vert.x changed: no class file for %s", name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }
}
