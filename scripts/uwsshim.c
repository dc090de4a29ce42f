/* The three C23 entry points that glibc 2.38 added and the uWebSockets.js addon imports, for
 * systems with an older glibc (Debian 12 has 2.36). Each forwards to the classic function; the
 * only difference in behaviour is that C23 also accepts a "0b" prefix in base 0 or 2, which
 * uWebSockets never relies on. Built and linked by scripts/uws-glibc-compat.mjs. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

long __isoc23_strtol(const char *nptr, char **endptr, int base) {
  return strtol(nptr, endptr, base);
}

unsigned long __isoc23_strtoul(const char *nptr, char **endptr, int base) {
  return strtoul(nptr, endptr, base);
}

int __isoc23_sscanf(const char *str, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int result = vsscanf(str, format, args);
  va_end(args);
  return result;
}
