/**
 * One signature per algorithm, made once with node:crypto, that this Node must verify before
 * the engine counts the algorithm as supported: a build without Ed448, or an OpenSSL policy
 * that refuses SHA-1 signatures, makes the algorithm unsupported (insecure, RFC 4035 section
 * 5.2) instead of making every signature in it bogus.
 */

/** The signed text of every probe. */
export const PROBE_DATA = 'dnscore algorithm probe';

/** A 1024-bit RSA key in DNSKEY form (RFC 3110), shared by the RSA probes. */
const RSA_KEY =
  'AwEAAaFN4pL4dIQ7U3sdUQkiOUx+ouHtJQEXzDQ3mM1bVS5OYeNZssR5ouTCCpUfZmNagV4tcRj7bmPkSQxX9SS8WkJywpLsfqbv' +
  'KU5Qv0hsSubBzyzPrBz/fT70wpUDL8va0hc4FWHJBeH0xFNOpIynjOzed0Ql6NQ8E9J4ZFkrdmE9';

/** Algorithm number: [DNSKEY public key, signature], both base64. */
export const PROBES: ReadonlyMap<number, readonly [string, string]> = new Map<number, readonly [string, string]>([
  [
    5,
    [
      RSA_KEY,
      'k8BWPo+0JFzPa3eyOCFt6hZHElh/Jmf6Y5pzhRPMD+Do0EFeLPSxJR794T/Ztv+hkeKAsfedA1hKEUAKENcvwP3SLjpw9Qwm' +
        'qLSCozDkBg5Vqej1w/7+3B59CSmIN9WSh8yGsUzvKpZrMlgTB/4ai5l/vc+3hkA9tLDFMCyH+EE=',
    ],
  ],
  [
    8,
    [
      RSA_KEY,
      'M6/I50ujYLYJKmGPj9FjnkpEEioXdCHIYingYjG3Mbd56mpHf8byKYWJcqxL5eS/E8YAxxSQSHdXQbvNPY9KbTyyNJ3jNxLm' +
        'Ob6o/fECBeCMvo8faOhYN0+d1QIKp9atO6iW+mI4jWSxCadSPJw2JvjGWrPNgdEgQXHZTmgxeBk=',
    ],
  ],
  [
    10,
    [
      RSA_KEY,
      'fU6/IWy8TlsN/jfQpl73523CEkoA2/EV0GJHP03QjSqbk6GplO5z/NOX8vj2wUmxdeB6E3jccKS/qKb/wPJKsoJLZFB5Tsw3' +
        'dCB/r3Oz4L/zwY4dkY+zLILqjQGwLlu4x2VHUAuWN3szxz6wJYbD5S/uJI0raTyG12sx8hkoIGA=',
    ],
  ],
  [
    13,
    [
      'cgl726XzN1hrfsZLy0PBW0Okojv0UAib9/HXYAMCoHIILbc6HcABYm+EvJzyvMx9o2OriOeVcje8aWS7WDI92g==',
      'nWC0rLux6E305jjz0QP0KaX3O2XrtdycjIDICAWGoFFHg9oQxxplcYNxRKYBj766NoZ+Xu4YLdio1PFmsEAq/Q==',
    ],
  ],
  [
    14,
    [
      'FY3QRXuNepbCvKHU3dtWGzweNABjvAZxbv07/S1i18dOpwat7mHq3ftmuEan9g9tyYdiz9G9RtsoGLFKND+FllQbHrnnWJj7' +
        'mNafGmeX6NYx/V+lCWqvgXCbXECQPrJD',
      'B1u+MzDkEXceY74ovFAsUfeFCYRibvad6PGYyzGm8j6vRKGqXixxc0OdxCThyBuLYW+4sB0GznWwGmx3HpThWKeKDc4BefCk' +
        '6/chAcXc0WXrNQjT3M/Hc6sBn+6RqbL6',
    ],
  ],
  [
    15,
    [
      'ntuycnvghuqUCsNiRiAwC9PkcdbFMy4Y5CjD6lum6qs=',
      'AqMyGYzKEW5OsC28FfIvNDTzCQhl9HoHf3PGDZT7ivZB4cAkBo27B6SSOuI0jrW6EO2Fu0YZ02OsaVPCLDg8BA==',
    ],
  ],
  [
    16,
    [
      'LBtshS0O99O7A5bKebs28RJzOG+SNvGDu9TMkUBKPJGvIxiOB0CtAj9bR7V9bQDq51+i1gNHOIQA',
      '2vPMKiWVGvGatVBFHMQe9UPiatVoZpu5qaDb3oKH+0fGPngWF61gXSHKWpR/fRq8Kw0bcIgDMqKAXUoDszWlPx7Yl2wZJ4e9' +
        'd0MevegOzdoHkJ0AulnY0zLeUWVtaz2IU4UdrS8F+sp8QnGn5sKSdgcA',
    ],
  ],
]);
