/* The sizes of TCP's structures on this machine (issue #6 asks for them
 * printed): a connection's protocol state, a listener, the layer, a
 * sock_tcp socket with its buffers, a listening queue, the bulk app. The
 * Cortex-M3 figures come from `./wren size`. */
#include <stdio.h>

#include "apps/tcp_app.h"
#include "sock/sock_tcp.h"
#include "tcp/tcp.h"

int main(void)
{
    printf("struct_wren_tcp_conn %zu\n", sizeof(struct wren_tcp_conn));
    printf("struct_wren_tcp_listener %zu\n", sizeof(struct wren_tcp_listener));
    printf("struct_wren_tcp %zu\n", sizeof(struct wren_tcp));
    printf("struct_wren_sock_tcp %zu\n", sizeof(struct wren_sock_tcp));
    printf("struct_wren_sock_tcp_queue %zu\n", sizeof(struct wren_sock_tcp_queue));
    printf("struct_wren_tcp_app %zu\n", sizeof(struct wren_tcp_app));
    return 0;
}
