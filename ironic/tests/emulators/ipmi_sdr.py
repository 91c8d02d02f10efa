"""Sensors of the IPMI BMC emulator: an SDR repository and readings.

A handful of threshold sensors (temperatures, a fan, a voltage, a power
supply) described by full sensor records (IPMI 2.0, section 43.1) in an SDR
repository that ``ipmitool sdr`` reads with Get SDR Repository Info,
Reserve SDR Repository and Get SDR, and answered by Get Sensor Reading and
Get Sensor Thresholds. Readings follow the emulated machine's power: the
fan stops and the processor cools down when it is off.
"""

from __future__ import annotations

import dataclasses

# IPMI sensor type codes and units (IPMI 2.0 tables 42-3 and 43-15).
TEMPERATURE, VOLTAGE, FAN, POWER_SUPPLY = 0x01, 0x02, 0x04, 0x08
DEGREES_C, VOLTS, WATTS, RPM = 1, 4, 6, 18
# Entity IDs (table 43-13).
PROCESSOR, POWER_SUPPLY_ENTITY, FAN_DEVICE, AIR_INLET = 0x03, 0x0a, 0x1d, \
    0x37

NETFN_SENSOR, NETFN_STORAGE = 0x04, 0x0a
CMD_GET_THRESHOLDS, CMD_GET_READING = 0x27, 0x2d
CMD_SDR_INFO, CMD_SDR_RESERVE, CMD_GET_SDR = 0x20, 0x22, 0x23
# Completion codes.
NOT_PRESENT, INVALID_FIELD = 0xcb, 0xcc
_LAST_RECORD = 0xffff
_RESERVATION = 0x0001
# Upper critical is the one threshold our sensors have (readable mask bit).
_UPPER_CRITICAL = 0x10


@dataclasses.dataclass(frozen=True)
class Sensor:
    """One threshold sensor; readings are raw bytes, value = m * raw *
    10^r_exp."""

    number: int
    name: str
    sensor_type: int
    entity: int
    unit: int
    raw_on: int
    raw_off: int
    upper_critical: int
    m: int = 1
    r_exp: int = 0

    def raw(self, powered_on: bool) -> int:
        return self.raw_on if powered_on else self.raw_off


SENSORS = (
    Sensor(1, "CPU Temp", TEMPERATURE, PROCESSOR, DEGREES_C, 45, 25, 90),
    Sensor(2, "Inlet Temp", TEMPERATURE, AIR_INLET, DEGREES_C, 24, 22, 45),
    Sensor(3, "Fan 1", FAN, FAN_DEVICE, RPM, 60, 0, 200, m=50),
    Sensor(4, "Vcore", VOLTAGE, PROCESSOR, VOLTS, 120, 0, 150, r_exp=-2),
    Sensor(5, "PSU1 Output", POWER_SUPPLY, POWER_SUPPLY_ENTITY, WATTS, 90,
           0, 250, m=2),
)


def full_record(sensor: Sensor, record_id: int) -> bytes:
    """The full sensor record (type 01h) describing ``sensor``."""
    name = sensor.name.encode("ascii")[:16]
    body = bytes([
        0x20, 0x00, sensor.number,            # owner, LUN, sensor number
        sensor.entity, 0x01,                  # entity id and instance
        0x7f, 0x44,                           # init; readable thresholds
        sensor.sensor_type, 0x01,             # type; threshold based
        0x00, 0x00,                           # assertion mask
        0x00, 0x20,                           # upper critical compared
        _UPPER_CRITICAL, 0x00,                # readable thresholds
        0x00, sensor.unit, 0x00,              # unsigned; unit; no modifier
        0x00,                                 # linear
        sensor.m & 0xff, (sensor.m >> 2) & 0xc0,  # M, tolerance 0
        0x00, 0x00, 0x00,                     # B 0, accuracy 0
        (sensor.r_exp & 0x0f) << 4,           # R exponent, B exponent 0
        0x00, 0x00, 0x00, 0x00,               # no nominal/normal values
        0xff, 0x00,                           # sensor max, min
        0x00, sensor.upper_critical, 0x00,    # UNR, UC, UNC
        0x00, 0x00, 0x00,                     # LNR, LC, LNC
        0x00, 0x00,                           # hysteresis
        0x00, 0x00, 0x00,                     # reserved, OEM
        0xc0 | len(name)]) + name             # 8-bit ASCII id string
    header = bytes([record_id & 0xff, record_id >> 8, 0x51, 0x01,
                    len(body)])
    return header + body


class Repository:
    """The SDR repository and sensor commands of one BMC."""

    def __init__(self, sensors: tuple[Sensor, ...] = SENSORS):
        self.sensors = {s.number: s for s in sensors}
        self.records = [full_record(s, i + 1)
                        for i, s in enumerate(sensors)]

    def handles(self, netfn: int, command: int) -> bool:
        return (netfn, command) in {
            (NETFN_STORAGE, CMD_SDR_INFO), (NETFN_STORAGE, CMD_SDR_RESERVE),
            (NETFN_STORAGE, CMD_GET_SDR), (NETFN_SENSOR, CMD_GET_READING),
            (NETFN_SENSOR, CMD_GET_THRESHOLDS)}

    def answer(self, netfn: int, command: int, data: list[int],
               powered_on: bool) -> tuple[int, list[int]]:
        """(completion code, response data) for one request."""
        if netfn == NETFN_STORAGE:
            return {CMD_SDR_INFO: self._info,
                    CMD_SDR_RESERVE: self._reserve,
                    CMD_GET_SDR: self._get_sdr}[command](data)
        sensor = self.sensors.get(data[0]) if data else None
        if sensor is None:
            return NOT_PRESENT, []
        if command == CMD_GET_READING:
            # Event messages and scanning enabled, no threshold crossed.
            return 0, [sensor.raw(powered_on), 0xc0, 0x00]
        return 0, [_UPPER_CRITICAL, 0, 0, 0, 0, sensor.upper_critical, 0]

    def _info(self, _data: list[int]) -> tuple[int, list[int]]:
        count = len(self.records)
        # Version 51h, record count, no free space, no timestamps,
        # non-modal updates and reservations supported.
        return 0, [0x51, count & 0xff, count >> 8, 0, 0,
                   *([0] * 8), 0x22]

    def _reserve(self, _data: list[int]) -> tuple[int, list[int]]:
        return 0, [_RESERVATION & 0xff, _RESERVATION >> 8]

    def _get_sdr(self, data: list[int]) -> tuple[int, list[int]]:
        if len(data) < 6:
            return INVALID_FIELD, []
        record_id = data[2] | data[3] << 8
        offset, count = data[4], data[5]
        index = 0 if record_id == 0 else record_id - 1
        if not 0 <= index < len(self.records):
            return NOT_PRESENT, []
        nxt = index + 2 if index + 1 < len(self.records) else _LAST_RECORD
        record = self.records[index]
        chunk = record[offset:] if count == 0xff else \
            record[offset:offset + count]
        return 0, [nxt & 0xff, nxt >> 8, *chunk]
