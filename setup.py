# nbdev 2's setup.py template: everything is read from settings.ini.
from configparser import ConfigParser
import glob, os, shutil
import setuptools, shlex
from setuptools.command.build_py import build_py

config = ConfigParser(delimiters=['='])
config.read('settings.ini', encoding='utf-8')
cfg = config['DEFAULT']

cfg_keys = 'version description keywords author author_email'.split()
expected = cfg_keys + "lib_name user branch license status min_python audience language".split()
for o in expected: assert o in cfg, "missing expected setting: {}".format(o)
setup_cfg = {o:cfg[o] for o in cfg_keys}

licenses = {
    'apache2': ('Apache Software License 2.0','OSI Approved :: Apache Software License'),
    'mit': ('MIT License', 'OSI Approved :: MIT License'),
    'gpl2': ('GNU General Public License v2', 'OSI Approved :: GNU General Public License v2 (GPLv2)'),
    'gpl3': ('GNU General Public License v3', 'OSI Approved :: GNU General Public License v3 (GPLv3)'),
    'bsd3': ('BSD License', 'OSI Approved :: BSD License'),
}
statuses = [ '1 - Planning', '2 - Pre-Alpha', '3 - Alpha',
    '4 - Beta', '5 - Production/Stable', '6 - Mature', '7 - Inactive' ]
py_versions = '3.10 3.11 3.12 3.13'.split()

requirements = shlex.split(cfg.get('requirements', ''))
if cfg.get('pip_requirements'): requirements += shlex.split(cfg.get('pip_requirements', ''))
min_python = cfg['min_python']
lic = licenses.get(cfg['license'].lower(), (cfg['license'], None))
dev_requirements = (cfg.get('dev_requirements') or '').split()
# The optional GRPO extra (torch, TRL, transformers): `pip install 'llm_perturb[rl]'`.
rl_requirements = (cfg.get('rl_requirements') or '').split()
# The optional GEARS baseline (cell-gears, torch_geometric): `pip install 'llm_perturb[gears]'`.
gears_requirements = (cfg.get('gears_requirements') or '').split()
# The documentation site (Sphinx, myst-nb, sphinx-book-theme, sphinx-argparse): `pip install 'llm_perturb[docs]'`.
docs_requirements = (cfg.get('docs_requirements') or '').split()

package_data = dict()
pkg_data = cfg.get('package_data', None)
if pkg_data:
    package_data[cfg['lib_name']] =  pkg_data.split() # split as multiple files might be listed

# Files of the checkout that the library reads at run time (data tables, the committed LLM caches, the section
# notebooks) stay where the project's layout puts them; the wheel carries copies under <lib>/_checkout/<same path>,
# which `llm_perturb.runner.checkout_file` reads when there is no checkout. MANIFEST.in puts them in the sdist.
checkout_files = cfg.get('checkout_files', '').split()

class build_py_checkout(build_py):
    "build_py, then copy settings.ini's `checkout_files` into <build_lib>/<lib>/_checkout/ (not for editable installs)."
    def run(self):
        super().run()
        if getattr(self, 'editable_mode', False): return  # an editable install reads the checkout itself
        dest = os.path.join(self.build_lib, cfg['lib_path'], '_checkout')
        shutil.rmtree(dest, ignore_errors=True)  # no stale copy from an earlier build
        for pat in checkout_files:
            hits = sorted(glob.glob(pat))
            if not hits: raise SystemExit(f"settings.ini checkout_files: {pat!r} matches no file in {os.getcwd()}; "
                                          "an sdist must carry it (MANIFEST.in)")
            for f in hits:
                self.mkpath(os.path.dirname(os.path.join(dest, f)))
                self.copy_file(f, os.path.join(dest, f))

setuptools.setup(
    name = cfg['lib_name'],
    license = lic[0],
    classifiers = [
        'Development Status :: ' + statuses[int(cfg['status'])],
        'Intended Audience :: ' + cfg['audience'].title(),
        'Natural Language :: ' + cfg['language'].title(),
    ] + ['Programming Language :: Python :: '+o for o in py_versions[py_versions.index(min_python):]] + (['License :: ' + lic[1] ] if lic[1] else []),
    url = cfg['git_url'],
    packages = setuptools.find_packages(),
    include_package_data = True,
    package_data = package_data,
    cmdclass = {'build_py': build_py_checkout},
    install_requires = requirements,
    extras_require={ 'dev': dev_requirements, 'rl': rl_requirements, 'gears': gears_requirements,
                     'docs': docs_requirements },
    dependency_links = cfg.get('dep_links','').split(),
    python_requires  = '>=' + cfg['min_python'],
    long_description = open('README.md', encoding='utf-8').read(),
    long_description_content_type = 'text/markdown',
    zip_safe = False,
    entry_points = {
        'console_scripts': cfg.get('console_scripts','').split(),
        'nbdev': [f'{cfg.get("lib_path")}={cfg.get("lib_path")}._modidx:d']
    },
    **setup_cfg)
