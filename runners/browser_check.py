"""Open a report in headless Chromium and read back what a person would see.

A report can be valid HTML and still show nothing: an image that does not decode, a plot that
came out blank, a script error. This loads the page in a real browser (Debian's chromium and
chromedriver, through Selenium), collects the console's errors, decodes every image and counts
its non-background pixels on a canvas, and returns the text of every table cell, so a test or
`focal demo` can compare the page with the figures it was made from.
"""
import dataclasses
import shutil
from pathlib import Path

CHROMIUM_NAMES = ('chromium', 'chromium-browser', 'google-chrome')
LOAD_SECONDS = 60

# Per image: decoded size, and the share of sampled pixels that differ from its top-left pixel.
IMAGES_SCRIPT = '''
const done = arguments[arguments.length - 1];
Promise.all([...document.images].map(async (img) => {
  try { await img.decode(); } catch (e) { return {alt: img.alt, width: 0, height: 0, inked: 0, error: String(e)}; }
  const canvas = document.createElement('canvas');
  canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
  const context = canvas.getContext('2d');
  context.drawImage(img, 0, 0);
  const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
  let inked = 0, sampled = 0;
  for (let i = 0; i < data.length; i += 4 * 7) {
    sampled += 1;
    if (Math.abs(data[i] - data[0]) + Math.abs(data[i + 1] - data[1]) + Math.abs(data[i + 2] - data[2]) > 30) inked += 1;
  }
  return {alt: img.alt, width: img.naturalWidth, height: img.naturalHeight, inked: inked / Math.max(sampled, 1),
          error: null};
})).then(done);
'''
TABLES_SCRIPT = '''
return [...document.querySelectorAll('table')].map(
  (table) => [...table.rows].map((row) => [...row.cells].map((cell) => cell.innerText.trim())));
'''


class BrowserUnavailable(RuntimeError):
    """No headless Chromium and chromedriver on this machine; the message says how to get them."""


@dataclasses.dataclass
class PageCheck:
    title: str
    console_errors: list[str]
    images: list[dict]       # alt, width, height, inked (share of pixels not the background), error
    tables: list[list[list[str]]]

    def problems(self, min_inked: float = 0.01) -> list[str]:
        """What a reader would find broken: console errors, images that do not decode or are blank."""
        found = [f'console: {message}' for message in self.console_errors]
        for image in self.images:
            if image['error'] or not image['width']:
                found.append(f'image "{image["alt"]}" does not decode: {image["error"]}')
            elif image['inked'] < min_inked:
                found.append(f'image "{image["alt"]}" is blank ({image["inked"]:.1%} of its pixels drawn)')
        return found

    def cells(self) -> set[str]:
        return {cell for table in self.tables for row in table for cell in row}


def find_browser() -> tuple[str, str]:
    chromium = next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)
    driver = shutil.which('chromedriver')
    if not chromium or not driver:
        raise BrowserUnavailable('headless Chromium is not installed (Debian: apt-get install chromium '
                                 'chromium-driver; `make test` and `make demo` install them when they can)')
    return chromium, driver


def check_page(path: str | Path) -> PageCheck:
    """Load a local HTML file in headless Chromium and read back its errors, images and tables."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    chromium, chromedriver = find_browser()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                     '--window-size=1280,2000'):
        options.add_argument(argument)
    options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    browser = webdriver.Chrome(service=Service(chromedriver), options=options)
    try:
        browser.set_script_timeout(LOAD_SECONDS)
        browser.get(Path(path).resolve().as_uri())
        WebDriverWait(browser, LOAD_SECONDS).until(
            lambda b: b.execute_script('return document.readyState') == 'complete')
        images = browser.execute_async_script(IMAGES_SCRIPT)
        tables = browser.execute_script(TABLES_SCRIPT)
        errors = [entry['message'] for entry in browser.get_log('browser') if entry['level'] == 'SEVERE']
        return PageCheck(browser.title, errors, images, tables)
    finally:
        browser.quit()
