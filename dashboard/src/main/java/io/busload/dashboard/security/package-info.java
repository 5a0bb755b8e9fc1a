/**
 * Who may change things: viewing is open to anyone, starting sweeps and changing schedules needs a login with role
 * OPERATOR or ADMIN. Users live in a properties file; the first start creates an admin and prints its password once.
 * Repeated wrong passwords are refused for a while, per user and per client address ({@code LoginThrottle}).
 */
package io.busload.dashboard.security;
