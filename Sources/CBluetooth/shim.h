#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>

/* HCI_CHANNEL_USER: exclusive access to a powered-down adapter (Linux 3.14+). */
#ifndef HCI_CHANNEL_USER
#define HCI_CHANNEL_USER 1
#endif
