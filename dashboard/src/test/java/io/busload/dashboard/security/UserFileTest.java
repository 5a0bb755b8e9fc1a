package io.busload.dashboard.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;

class UserFileTest {
  private final PasswordEncoder encoder = PasswordEncoderFactories.createDelegatingPasswordEncoder();

  @Test
  void loadOrCreate_noFile_createsAdminPrintsItsPasswordOnceAndStoresOnlyTheHash(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("dashboard/users.properties");
    ByteArrayOutputStream console = new ByteArrayOutputStream();

    var users = UserFile.loadOrCreate(file, encoder, new PrintStream(console, true, StandardCharsets.UTF_8));
    String printed = console.toString(StandardCharsets.UTF_8);
    String password = printed.lines().filter(l -> l.contains("shown this once")).findFirst().orElseThrow()
        .replaceAll(".*: ", "");

    assertThat(users).singleElement().satisfies(u -> {
      assertThat(u.getUsername()).isEqualTo("admin");
      assertThat(u.getAuthorities()).extracting(Object::toString).containsExactly("ROLE_ADMIN", "ROLE_OPERATOR");
      assertThat(encoder.matches(password, u.getPassword())).isTrue();
    });
    assertThat(Files.readString(file)).doesNotContain(password).contains("{bcrypt}");

    ByteArrayOutputStream second = new ByteArrayOutputStream();
    UserFile.loadOrCreate(file, encoder, new PrintStream(second, true, StandardCharsets.UTF_8));
    assertThat(second.size()).as("the password is printed at the first start only").isZero();
  }

  @Test
  void loadOrCreate_configuredUsers_rolesFromTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("users.properties");
    Files.writeString(file, "ops={bcrypt}" + encoder.encode("x").substring(8) + ",OPERATOR\nviewer={noop}y,VIEWER\n");

    var users = UserFile.loadOrCreate(file, encoder, new PrintStream(new ByteArrayOutputStream()));

    assertThat(users).extracting(u -> u.getUsername() + u.getAuthorities())
        .containsExactly("ops[ROLE_OPERATOR]", "viewer[ROLE_VIEWER]");
  }
}
