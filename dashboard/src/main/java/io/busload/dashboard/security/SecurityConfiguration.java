package io.busload.dashboard.security;

import com.vaadin.flow.spring.security.VaadinSecurityConfigurer;
import io.busload.dashboard.security.ui.LoginView;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.authentication.dao.DaoAuthenticationProvider;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.provisioning.UserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Spring Security with Vaadin's configurer: every view is open ({@code @AnonymousAllowed}); what changes the fleet
 * is checked on the server by {@link WriteAccess}, so a crafted request is refused as surely as a hidden button.
 */
@Configuration
@EnableWebSecurity
public class SecurityConfiguration {

  /**
   * Logins go through {@link LoginThrottle} in front of the users file's password check, so repeated wrong passwords
   * for one user or from one address are refused for a while, saying so on the login page.
   */
  @Bean
  SecurityFilterChain filterChain(HttpSecurity http, UserDetailsManager users, PasswordEncoder encoder)
      throws Exception {
    DaoAuthenticationProvider passwords = new DaoAuthenticationProvider(users);
    passwords.setPasswordEncoder(encoder);
    http.authenticationManager(new ProviderManager(new LoginThrottle(passwords, Clock.systemUTC())));
    http.with(VaadinSecurityConfigurer.vaadin(), vaadin -> vaadin.loginView(LoginView.class));
    return http.build();
  }

  @Bean
  PasswordEncoder passwordEncoder() {
    return PasswordEncoderFactories.createDelegatingPasswordEncoder();
  }

  /**
   * {@code busload.users-file} (or {@code BUSLOAD_USERS_FILE}), default {@code ~/.busload/dashboard/users.properties}.
   * The first admin's password goes to the console, or, when {@code BUSLOAD_FIRST_PASSWORD_FILE} names a file,
   * to that file alone (owner-only): {@code ./busload up} sends the console to a log file, and a secret must
   * never land in a log; the launcher shows the file once and deletes it.
   */
  @Bean
  UserDetailsManager users(PasswordEncoder encoder,
      @Value("${busload.users-file:${BUSLOAD_USERS_FILE:${user.home}/.busload/dashboard/users.properties}}") Path file,
      @Value("${BUSLOAD_FIRST_PASSWORD_FILE:}") String passwordFile)
      throws IOException {
    if (passwordFile.isBlank() || java.nio.file.Files.exists(file)) {
      return new InMemoryUserDetailsManager(UserFile.loadOrCreate(file, encoder, System.out));
    }
    Path target = Path.of(passwordFile);
    java.nio.file.Files.createDirectories(target.toAbsolutePath().getParent());
    java.nio.file.Files.deleteIfExists(target);
    java.nio.file.Files.createFile(target, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
    try (java.io.PrintStream console = new java.io.PrintStream(java.nio.file.Files.newOutputStream(target), true,
        java.nio.charset.StandardCharsets.UTF_8)) {
      return new InMemoryUserDetailsManager(UserFile.loadOrCreate(file, encoder, console));
    }
  }
}
