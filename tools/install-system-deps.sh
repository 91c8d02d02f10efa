#!/usr/bin/env bash
# Installs the system binaries the tests drive (ipmitool, dnsmasq, socat,
# busybox for its DHCP and TFTP clients, iproute2 and ethtool for network
# namespaces, Apache with mod_wsgi for the API under mod_wsgi,
# redis-server that the HA scenarios start on ports of their own, xorriso
# to read back the ISO images the service builds, qemu-img to convert
# instance images; udev, lshw and dmidecode for the real agent's inventory,
# parted for the partition table it reads after writing an image; QEMU,
# OVMF, GRUB's EFI modules, dosfstools and mtools to boot an ISO in UEFI
# firmware, without their recommends: no display stack)
# when missing. Needs root or sudo; prints what it does.
set -euo pipefail
missing=()
command -v ipmitool >/dev/null 2>&1 || missing+=(ipmitool)
command -v dnsmasq >/dev/null 2>&1 || missing+=(dnsmasq-base)
command -v socat >/dev/null 2>&1 || missing+=(socat)
command -v busybox >/dev/null 2>&1 || missing+=(busybox)
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v ethtool >/dev/null 2>&1 || missing+=(ethtool)
[ -x /usr/sbin/apache2 ] || missing+=(apache2)
[ -e /usr/lib/apache2/modules/mod_wsgi.so ] || missing+=(libapache2-mod-wsgi-py3)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v xorriso >/dev/null 2>&1 || missing+=(xorriso)
command -v qemu-img >/dev/null 2>&1 || missing+=(qemu-utils)
# What the real ironic-python-agent reads its inventory with.
command -v udevadm >/dev/null 2>&1 || missing+=(udev)
command -v lshw >/dev/null 2>&1 || missing+=(lshw)
command -v dmidecode >/dev/null 2>&1 || missing+=(dmidecode)
command -v parted >/dev/null 2>&1 || missing+=(parted)
# Installed without their recommends (QEMU's pull in a display stack).
bare=()
command -v qemu-system-x86_64 >/dev/null 2>&1 || bare+=(qemu-system-x86)
[ -e /usr/share/OVMF/OVMF_CODE.fd ] || bare+=(ovmf)
[ -d /usr/lib/grub/x86_64-efi ] || bare+=(grub-efi-amd64-bin)
command -v mkfs.vfat >/dev/null 2>&1 || bare+=(dosfstools)
command -v mcopy >/dev/null 2>&1 || bare+=(mtools)
[ ${#missing[@]} -eq 0 ] && [ ${#bare[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
if command -v apt-get >/dev/null 2>&1; then
    echo "Installing ${missing[*]} ${bare[*]} with apt-get"
    $SUDO apt-get update -qq
    if [ ${#missing[@]} -gt 0 ]; then
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
            "${missing[@]}"
    fi
    if [ ${#bare[@]} -gt 0 ]; then
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
            --no-install-recommends "${bare[@]}"
    fi
elif command -v dnf >/dev/null 2>&1; then
    $SUDO dnf install -y ipmitool dnsmasq socat busybox iproute ethtool \
        httpd python3-mod_wsgi redis xorriso qemu-img qemu-system-x86 \
        edk2-ovmf grub2-efi-x64-modules dosfstools mtools udev lshw \
        dmidecode parted
else
    echo "Please install: ${missing[*]} ${bare[*]}" >&2
    exit 1
fi
