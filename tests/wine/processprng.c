/* Test-only stand-in for Windows' bcryptprimitives.dll, which Wine 8 lacks: Rust's standard
 * library imports ProcessPrng from it, so a Windows binary does not load under that Wine
 * without it. scripts/test-windows.sh builds it with MinGW-w64 into the test's own Wine prefix;
 * it is never shipped. RtlGenRandom (SystemFunction036) is the random source Wine has. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x7fffffff ? 0x7fffffff : (ULONG)len;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
