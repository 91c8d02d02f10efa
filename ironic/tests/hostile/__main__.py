import sys

from ironic.tests.hostile.runner import main

sys.exit(main())
