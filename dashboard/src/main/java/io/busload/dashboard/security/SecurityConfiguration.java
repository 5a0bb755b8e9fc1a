package io.busload.dashboard.security;

import com.vaadin.flow.spring.security.VaadinSecurityConfigurer;
import io.busload.dashboard.security.ui.LoginView;
import java.io.IOException;
import java.nio.file.Path;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
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

  @Bean
  SecurityFilterChain filterChain(HttpSecurity http) throws Exception {
    http.with(VaadinSecurityConfigurer.vaadin(), vaadin -> vaadin.loginView(LoginView.class));
    return http.build();
  }

  @Bean
  PasswordEncoder passwordEncoder() {
    return PasswordEncoderFactories.createDelegatingPasswordEncoder();
  }

  /** {@code busload.users-file} (or {@code BUSLOAD_USERS_FILE}), default {@code ~/.busload/dashboard/users.properties}. */
  @Bean
  UserDetailsManager users(PasswordEncoder encoder,
      @Value("${busload.users-file:${BUSLOAD_USERS_FILE:${user.home}/.busload/dashboard/users.properties}}") Path file)
      throws IOException {
    return new InMemoryUserDetailsManager(UserFile.loadOrCreate(file, encoder, System.out));
  }
}
